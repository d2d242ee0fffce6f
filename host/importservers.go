package host

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host/admin"
)

// ImportServers merges the servers of another host's config into a config file,
// in one edit of it (editFile: comments kept, checked, written atomically): those
// of from, a host (claude, cursor, vscode, codex: config.ReadHostServers has
// their places) or a config file (Codex's TOML, or any shape a config file has).
// A server whose name the file has with another entry is a clash, which
// ImportOptions.Clash decides; a server the file has as it is changes nothing.

// ImportHosts are the hosts ImportServers reads by name.
var ImportHosts = config.ImportHosts

// HostFile is one place a host keeps servers, and whether it was found.
type HostFile = config.HostFile

// ImportOptions are the inputs of ImportServers; nil means the defaults: clashes
// refused, the process's working directory, home and environment.
type ImportOptions struct {
	FileEditOptions
	// Clash decides each imported server whose name the file has with another
	// entry. Nil refuses them: an *admin.Error (Kind Exists, Servers the names),
	// and nothing is written.
	Clash func(Clash) (ClashChoice, error)
	// Dir is the working directory whose project files are read ("": the
	// process's); Home the home directory (""; the user's); LookupEnv reads
	// CODEX_HOME, APPDATA and XDG_CONFIG_HOME (nil: the process's environment).
	Dir, Home string
	LookupEnv func(string) (string, bool)
}

// Clash is an imported server whose name the file has with another entry.
type Clash struct {
	Name string
	// From is the file the imported server comes from.
	From string
	// Existing and Incoming are the two entries, their secrets masked.
	Existing, Incoming json.RawMessage
	// Rename is the free name that RenameImported gives the imported server.
	Rename string
	// Differ are the fields whose values differ ("args", "env.TOKEN").
	Differ []string
}

// ClashChoice is what to do with a Clash.
type ClashChoice int

const (
	// KeepExisting leaves the file's server as it is, and the imported one out.
	KeepExisting ClashChoice = iota + 1
	// ReplaceExisting puts the imported entry in place of the file's.
	ReplaceExisting
	// RenameImported adds the imported server under Clash.Rename.
	RenameImported
)

// ImportAction is what an import did with one server.
type ImportAction string

const (
	Added     ImportAction = "add"
	Replaced  ImportAction = "replace"
	Renamed   ImportAction = "rename"
	Kept      ImportAction = "keep"      // a clash, the file's server kept
	Unchanged ImportAction = "unchanged" // the file has it as it is
	Skipped   ImportAction = "skip"      // not a server to import (Notes say why)
)

// ImportedServer is one server of the host's config and what the import did
// with it.
type ImportedServer struct {
	// Name is its name in the file: Was's new name when Renamed.
	Name, Was string
	From      string
	Action    ImportAction
	// Entry is the imported entry, its secrets masked.
	Entry json.RawMessage
	// Notes say what of the host's entry was not carried over, or why it was
	// left out.
	Notes []string
}

// ImportResult is what ImportServers did, or would do (DryRun).
type ImportResult struct {
	FileResult
	// Files are the places of the host looked at.
	Files   []HostFile
	Servers []ImportedServer
}

// ImportServers imports the servers of from into the config file at path (made
// when missing). A from that cannot be read (no such host's config, a file that
// does not parse), a clash refused and an import the config does not take are
// *admin.Errors; nothing is written then.
func ImportServers(path, from string, o *ImportOptions) (*ImportResult, error) {
	if o == nil {
		o = &ImportOptions{}
	}
	hs, err := config.ReadHostServers(from, &config.DiscoverOptions{Dir: o.Dir, Home: o.Home, LookupEnv: o.LookupEnv})
	if err != nil {
		return nil, &admin.Error{Kind: admin.Invalid, Field: "from", Err: err}
	}
	res := &ImportResult{Files: hs.Files}
	suffix := "imported"
	if slices.Contains(ImportHosts, strings.ToLower(from)) {
		suffix = strings.ToLower(from)
	}
	var names []string
	fr, cfg, err := editFile(path, "", &o.FileEditOptions, func(data []byte) ([]byte, error) {
		if err := refuseClashes(data, hs.Servers, o.Clash); err != nil {
			return nil, err
		}
		for _, s := range hs.Servers {
			out, is, err := importOne(data, s, suffix, o.Clash)
			if err != nil {
				return nil, err
			}
			data = out
			res.Servers = append(res.Servers, is)
			if is.Action == Added || is.Action == Replaced || is.Action == Renamed {
				names = append(names, is.Name)
			}
		}
		return data, nil
	})
	if err != nil {
		return nil, err
	}
	for _, s := range hs.Shadowed {
		res.Servers = append(res.Servers, ImportedServer{Name: s.Name, From: s.From, Action: Skipped, Entry: config.MaskEntry(s.Entry), Notes: s.Notes})
	}
	for _, n := range names {
		fr.Warnings = append(fr.Warnings, serverWarnings(cfg.Warnings, path, n)...)
	}
	res.FileResult = fr
	return res, nil
}

// refuseClashes is the *admin.Error of the clashes of servers with data's, when
// there is nobody to decide them.
func refuseClashes(data []byte, servers []config.HostServer, decide func(Clash) (ClashChoice, error)) error {
	if decide != nil {
		return nil
	}
	var clashes []string
	for _, s := range servers {
		if existing, ok := entryIn(data, importName(s)); ok && !s.Skip && !sameEntry(existing, s.Entry) {
			clashes = append(clashes, importName(s))
		}
	}
	if len(clashes) == 0 {
		return nil
	}
	quoted := make([]string, len(clashes))
	for i, c := range clashes {
		quoted[i] = strconv.Quote(c)
	}
	msg := "%s is in the config already, with another entry"
	if len(clashes) > 1 {
		msg = "%s are in the config already, with other entries"
	}
	return &admin.Error{Kind: admin.Exists, Servers: clashes, Err: fmt.Errorf(msg, strings.Join(quoted, ", "))}
}

// importOne merges s into data.
func importOne(data []byte, s config.HostServer, suffix string, decide func(Clash) (ClashChoice, error)) ([]byte, ImportedServer, error) {
	is := ImportedServer{Name: importName(s), From: s.From, Action: Added, Entry: config.MaskEntry(s.Entry), Notes: s.Notes}
	if is.Name != s.Name {
		is.Was = s.Name
		is.Notes = append(is.Notes, fmt.Sprintf("named %q: the config's names are letters, digits, '.', '_' and '-'", is.Name))
	}
	if s.Skip {
		is.Action = Skipped
		return data, is, nil
	}
	existing, ok := entryIn(data, is.Name)
	switch {
	case !ok:
		out, err := config.AddServer(data, is.Name, s.Entry)
		return out, is, err
	case sameEntry(existing, s.Entry):
		is.Action = Unchanged
		return data, is, nil
	}
	if decide == nil { // two of the host's servers that take one name
		return nil, is, &admin.Error{Kind: admin.Exists, Server: is.Name, Servers: []string{is.Name},
			Err: fmt.Errorf("two servers imported take the name %q", is.Name)}
	}
	c := Clash{Name: is.Name, From: s.From, Existing: config.MaskEntry(existing), Incoming: is.Entry, Rename: freeName(data, is.Name, suffix),
		Differ: differ(existing, s.Entry)}
	choice, err := decide(c)
	if err != nil {
		return nil, is, err
	}
	switch choice {
	case ReplaceExisting:
		is.Action = Replaced
		out, err := config.ReplaceServer(data, is.Name, s.Entry)
		return out, is, err
	case RenameImported:
		is.Action, is.Was, is.Name = Renamed, s.Name, c.Rename
		out, err := config.AddServer(data, is.Name, s.Entry)
		return out, is, err
	default:
		is.Action = Kept
		return data, is, nil
	}
}

// entryIn is the entry of server name in data, when it has one.
func entryIn(data []byte, name string) (json.RawMessage, bool) {
	e, err := config.ServerEntry(data, name)
	return e, err == nil
}

// sameEntry reports whether two entries say the same, whatever their layout.
func sameEntry(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// differ are the fields whose values differ between two entries: a top-level
// field, or a key of an object's ("env.TOKEN").
func differ(a, b json.RawMessage) []string {
	var x, y map[string]any
	_ = json.Unmarshal(a, &x)
	_ = json.Unmarshal(b, &y)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(union(x, y))) {
		xo, xok := x[k].(map[string]any)
		yo, yok := y[k].(map[string]any)
		if !xok || !yok {
			if !reflect.DeepEqual(x[k], y[k]) {
				out = append(out, k)
			}
			continue
		}
		for _, kk := range slices.Sorted(maps.Keys(union(xo, yo))) {
			if !reflect.DeepEqual(xo[kk], yo[kk]) {
				out = append(out, k+"."+kk)
			}
		}
	}
	return out
}

func union(a, b map[string]any) map[string]any {
	u := maps.Clone(a)
	if u == nil {
		u = map[string]any{}
	}
	maps.Copy(u, b)
	return u
}

// badNameChars are what a server's name may not hold (checkName).
var badNameChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// importName is the name s takes in a config: its own, when checkName takes it, else
// with the characters it refuses made '-'.
func importName(s config.HostServer) string {
	if s.Skip || checkName(s.Name) == nil {
		return s.Name
	}
	n := strings.Trim(badNameChars.ReplaceAllString(s.Name, "-"), "-._")
	if len(n) > 48 {
		n = n[:48]
	}
	if n == "" {
		n = "server"
	}
	return n
}

// freeName is a name that data has no server of: name-suffix, else with a number.
func freeName(data []byte, name, suffix string) string {
	taken, _ := config.ServerNames(data)
	n := name + "-" + suffix
	for i := 2; slices.Contains(taken, n); i++ {
		n = name + "-" + suffix + "-" + strconv.Itoa(i)
	}
	return n
}
