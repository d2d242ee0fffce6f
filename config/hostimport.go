package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// Servers read from the configs of the hosts people use (Claude Desktop and
// Claude Code, Cursor, VS Code, Codex), as entries of a Switchboard config, for
// `switchboard import`. Each host keeps its servers in a few places, read from the
// one that wins in that host to the one that loses: a server that two of them
// name is taken from the first (the host would use that one), the others are
// Shadowed.

// ImportHosts are the names [ReadHostServers] takes in place of a file.
var ImportHosts = []string{"claude", "cursor", "vscode", "codex"}

// hostTitles are the names of ImportHosts as people know them.
var hostTitles = map[string]string{"claude": "Claude Code or Claude Desktop", "cursor": "Cursor", "vscode": "VS Code", "codex": "Codex"}

// HostServer is one server of another host's config.
type HostServer struct {
	Name string
	// Entry is the server as an entry of a Switchboard config (standard JSON,
	// values as the host's file has them: secrets included, ${VAR} unexpanded).
	Entry json.RawMessage
	// From is the file it was read from.
	From string
	// Notes say what of the host's entry was not carried over, or why the server
	// is left out (Skip).
	Notes []string
	// Skip: the server is not one to import (Switchboard's own gateway).
	Skip bool
}

// HostFile is one place a host keeps servers.
type HostFile struct {
	Path string
	// Host names the program and the scope ("Claude Code (user)", "Codex").
	Host  string
	Found bool
}

// HostServers are the servers of a host's files.
type HostServers struct {
	// Files are the places looked at, in order (those not found included).
	Files   []HostFile
	Servers []HostServer
	// Shadowed are servers whose name a file read before had too.
	Shadowed []HostServer
}

// hostFile is a place to read, and how.
type hostFile struct {
	HostFile
	read func(path string) ([]HostServer, error)
}

// ReadHostServers reads the servers of from: a host (claude, cursor, vscode,
// codex) at its usual places, or a config file (a .toml file as Codex's config,
// any other in one of the shapes Parse reads). The places:
//
//   - claude: Claude Code's ~/.claude.json (the working directory's project under
//     "projects", then its top-level "mcpServers"), the project's .mcp.json, then
//     Claude Desktop's claude_desktop_config.json (where [Discover] looks for it);
//   - cursor: the project's .cursor/mcp.json, then ~/.cursor/mcp.json;
//   - vscode: the project's .vscode/mcp.json, then the user's mcp.json ("servers");
//   - codex: the project's .codex/config.toml, then $CODEX_HOME/config.toml
//     (~/.codex/config.toml), its [mcp_servers.NAME] tables.
//
// A host with none of its files is an error naming them; so is a file that does
// not parse.
func ReadHostServers(from string, o *DiscoverOptions) (*HostServers, error) {
	opts := o.withDefaults()
	files, err := opts.hostFiles(from)
	if err != nil {
		return nil, err
	}
	out := &HostServers{}
	seen := map[string]string{}
	for _, f := range files {
		servers, err := f.read(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			out.Files = append(out.Files, f.HostFile)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		f.Found = true
		out.Files = append(out.Files, f.HostFile)
		for _, s := range servers {
			if first, ok := seen[s.Name]; ok {
				s.Notes = append(s.Notes, "left out: "+first+" has it too, and comes first")
				out.Shadowed = append(out.Shadowed, s)
				continue
			}
			seen[s.Name] = s.From
			out.Servers = append(out.Servers, s)
		}
	}
	if !slices.ContainsFunc(out.Files, func(f HostFile) bool { return f.Found }) {
		if files[0].Host == "file" {
			return nil, fmt.Errorf("%s: no such file", files[0].Path)
		}
		var looked []string
		for _, f := range out.Files {
			looked = append(looked, f.Path)
		}
		return nil, fmt.Errorf("no %s config found (looked in %s)", hostTitles[strings.ToLower(from)], strings.Join(looked, ", "))
	}
	return out, nil
}

// hostFiles are the places of from, in the order they are read.
func (o *DiscoverOptions) hostFiles(from string) ([]hostFile, error) {
	if !slices.Contains(ImportHosts, strings.ToLower(from)) || isFile(o.project(from)) {
		path := o.rel(from)
		read := readConfigFile
		if strings.EqualFold(filepath.Ext(path), ".toml") {
			read = readCodexFile
		}
		return []hostFile{{HostFile{Path: path, Host: "file"}, read}}, nil
	}
	user, err := o.userPlaces()
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", from, err)
	}
	home := o.Home
	if home == "" {
		home, _ = os.UserHomeDir() // userPlaces found it
	}
	switch strings.ToLower(from) {
	case "claude":
		cwd, err := filepath.Abs(o.project("."))
		if err != nil {
			return nil, err
		}
		claudeJSON := filepath.Join(home, ".claude.json")
		return []hostFile{
			{HostFile{Path: claudeJSON, Host: "Claude Code (local)"}, func(p string) ([]HostServer, error) {
				return readKeyed(p, []string{"projects", cwd, "mcpServers"})
			}},
			{HostFile{Path: o.project(".mcp.json"), Host: "Claude Code (project)"}, readMCPServers},
			{HostFile{Path: claudeJSON, Host: "Claude Code (user)"}, readMCPServers},
			{HostFile{Path: user.claude.Path, Host: "Claude Desktop"}, readMCPServers},
		}, nil
	case "cursor":
		return []hostFile{
			{HostFile{Path: o.project(filepath.Join(".cursor", "mcp.json")), Host: "Cursor (project)"}, readMCPServers},
			{HostFile{Path: user.cursor.Path, Host: "Cursor"}, readMCPServers},
		}, nil
	case "vscode":
		servers := func(p string) ([]HostServer, error) { return readKeyed(p, []string{"servers"}) }
		return []hostFile{
			{HostFile{Path: o.project(filepath.Join(".vscode", "mcp.json")), Host: "VS Code (workspace)"}, servers},
			{HostFile{Path: user.vscode.Path, Host: "VS Code"}, servers},
		}, nil
	default: // codex
		codexHome := filepath.Join(home, ".codex")
		if v, ok := o.LookupEnv("CODEX_HOME"); ok && v != "" {
			codexHome = v
		}
		return []hostFile{
			{HostFile{Path: o.project(filepath.Join(".codex", "config.toml")), Host: "Codex (project)"}, readCodexFile},
			{HostFile{Path: filepath.Join(codexHome, "config.toml"), Host: "Codex"}, readCodexFile},
		}, nil
	}
}

// readMCPServers reads the "mcpServers" of a JSON file.
func readMCPServers(path string) ([]HostServer, error) {
	return readKeyed(path, []string{"mcpServers"})
}

// readKeyed reads the servers of the object at keys in a JSON file (comments and
// trailing commas allowed): none when the file has no such object.
func readKeyed(path string, keys []string) ([]HostServer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	root, err := hujson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("does not parse: %v", err)
	}
	v := &root
	for _, k := range keys {
		obj, ok := v.Value.(*hujson.Object)
		if !ok {
			return nil, nil
		}
		i := memberIndex(obj, k)
		if i < 0 {
			return nil, nil
		}
		v = &obj.Members[i].Value
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		if isNull(v) {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: want an object of servers", strings.Join(keys, "."))
	}
	var out []HostServer
	for i := range obj.Members {
		m := &obj.Members[i]
		e := m.Value.Clone()
		e.Standardize()
		e.Minimize()
		out = append(out, hostServer(keyOf(m), json.RawMessage(e.Pack()), path))
	}
	return out, nil
}

// readConfigFile reads the servers of a config file in any shape Parse reads.
func readConfigFile(path string) ([]HostServer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	names, err := ServerNames(data)
	if err != nil {
		return nil, err
	}
	var out []HostServer
	for _, n := range names {
		e, err := ServerEntry(data, n)
		if err != nil {
			return nil, err
		}
		out = append(out, hostServer(n, e, path))
	}
	return out, nil
}

// hostServer is the server name: entry of the file at path, skipped when it is
// Switchboard's own gateway (a name the config leaves out, or a command that is
// switchboard): imported, it would start itself.
func hostServer(name string, entry json.RawMessage, path string) HostServer {
	s := HostServer{Name: name, Entry: entry, From: path}
	var e struct {
		Command any `json:"command"`
	}
	_ = json.Unmarshal(entry, &e)
	cmd, _ := e.Command.(string)
	base := strings.ToLower(cmd[strings.LastIndexAny(cmd, `/\`)+1:]) // a Windows path too, read anywhere
	base = strings.TrimSuffix(base, ".exe")
	switch {
	case strings.HasPrefix(strings.ToLower(name), "switchboard"):
		s.Skip = true
		s.Notes = append(s.Notes, `left out: names that begin with "switchboard" name the gateway itself`)
	case base == "switchboard":
		s.Skip = true
		s.Notes = append(s.Notes, "left out: it runs switchboard, the gateway itself")
	}
	return s
}
