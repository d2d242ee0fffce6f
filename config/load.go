package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/tailscale/hujson"
)

// Options adjust loading. A nil *Options is valid and means the defaults.
type Options struct {
	// LookupEnv resolves ${VAR} references and SWITCHBOARD_INPUT_<ID>; nil means
	// os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// WorkspaceFolder is the config's project directory: what VS Code's
	// ${workspaceFolder} expands to, and [Server.ProjectDir]. "" means [WorkspaceFolder]
	// of the file when the source is one (Load, or Parse given a file's path);
	// otherwise ${workspaceFolder} is left as written, with a warning, and stdio
	// servers run in the host's working directory.
	WorkspaceFolder string
	// Prompt asks the user for an ${input:ID} that $SWITCHBOARD_INPUT_<ID> does not
	// give (see [Input]); nil, or an error, means it can't be asked: the input's
	// default if it has one, else an error naming the input and the variable to set.
	// The config package never touches the terminal itself.
	Prompt func(Input) (string, error)
}

func (o *Options) workspace(source string) string {
	if o != nil && o.WorkspaceFolder != "" {
		return o.WorkspaceFolder
	}
	if isFile(source) {
		return WorkspaceFolder(source)
	}
	return ""
}

func (o *Options) prompt() func(Input) (string, error) {
	if o == nil {
		return nil
	}
	return o.Prompt
}

func (o *Options) lookupEnv() func(string) (string, bool) {
	if o == nil || o.LookupEnv == nil {
		return os.LookupEnv
	}
	return o.LookupEnv
}

// Load reads and parses the config file at path. Errors are prefixed with path as given.
// On failure the error is an [Errors] and the *Config is nil.
func Load(path string, opts *Options) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		msg := err.Error()
		// The path is already the prefix; don't repeat it.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Op + ": " + pe.Err.Error()
		}
		return nil, Errors{{Source: path, Msg: msg, err: err}}
	}
	return Parse(data, path, opts)
}

// Parse parses a config (JSON or JSONC) read from source, which only labels messages.
// It reports every problem at once: on failure the error is a non-empty [Errors] and
// the *Config is nil.
func Parse(data []byte, source string, opts *Options) (*Config, error) {
	p := &parser{source: source, data: data, lookup: opts.lookupEnv(), workspace: opts.workspace(source), ask: opts.prompt()}
	return p.run()
}

// FromValue builds a Config from an in-memory value (a map[string]any, or a struct with
// json tags) in any of the shapes Parse accepts. The value goes through encoding/json, so
// map keys (and hence servers) come out sorted by name; null fields count as unset.
// Errors carry paths but no line numbers.
func FromValue(v any, opts *Options) (*Config, error) {
	const source = "<value>"
	data, err := json.Marshal(v)
	if err != nil {
		return nil, Errors{{Source: source, Msg: "cannot encode value as JSON: " + err.Error(), err: err}}
	}
	p := &parser{source: source, data: data, lookup: opts.lookupEnv(), noPos: true, ask: opts.prompt()}
	if opts != nil {
		p.workspace = opts.WorkspaceFolder
	}
	return p.run()
}

// parser holds the state of one Parse: the input, and the problems found so far.
type parser struct {
	source string
	data   []byte
	noPos  bool // positions in data mean nothing to the user (FromValue)
	lookup func(string) (string, bool)

	workspace string                      // ${workspaceFolder}; "" leaves it as written
	ask       func(Input) (string, error) // Options.Prompt

	lineStarts []int
	errs       Errors
	warns      []string
	// workspaceWarned keeps the ${workspaceFolder} warning to one per config.
	workspaceWarned bool
	// inputs are the declared VS Code inputs by id; inputVals the values found so far
	// (each input is asked at most once), and inputFailed those already reported.
	inputs      map[string]Input
	inputVals   map[string]string
	inputFailed map[string]bool
	// serverRefs are the servers the profiles name, checked once every server is read.
	serverRefs []serverRef
	// substituted holds the secret values that expansion put into the config: those of
	// variables feeding env and header values, and of variables named like credentials
	// anywhere ("--api-key ${API_KEY}"); ${HOME} in args is not one.
	substituted []string
}

func (p *parser) run() (*Config, error) {
	root, err := hujson.Parse(p.data)
	if err != nil {
		return nil, Errors{p.syntaxError(err)}
	}
	cfg := &Config{Source: p.source}
	p.top(&root, cfg)
	if len(p.errs) > 0 {
		// Walk order is nearly file order; sorting makes it exact (entry-level
		// problems are found after the entry's fields).
		sort.SliceStable(p.errs, func(i, j int) bool {
			a, b := p.errs[i], p.errs[j]
			return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
		})
		return nil, p.errs
	}
	if len(cfg.Servers) == 0 {
		p.warn("", "no servers configured")
	}
	cfg.Warnings = p.warns
	cfg.substituted = p.substituted
	return cfg, nil
}

// pos converts a byte offset in data to a 1-based line and byte column.
func (p *parser) pos(off int) (line, col int) {
	if p.noPos || off < 0 {
		return 0, 0
	}
	ls := p.lines()
	i := sort.SearchInts(ls, off+1) - 1
	return i + 1, off - ls[i] + 1
}

// lines returns the offset at which each line starts, computed once.
func (p *parser) lines() []int {
	if p.lineStarts == nil {
		p.lineStarts = []int{0}
		for i, c := range p.data {
			if c == '\n' {
				p.lineStarts = append(p.lineStarts, i+1)
			}
		}
	}
	return p.lineStarts
}

// offset is the inverse of pos, clamped to the data.
func (p *parser) offset(line, col int) int {
	p.lines()
	if line < 1 {
		return 0
	}
	if line > len(p.lineStarts) {
		return len(p.data)
	}
	return min(max(p.lineStarts[line-1]+col-1, 0), len(p.data))
}

// errAt records an error at v's position (none when v is nil).
func (p *parser) errAt(v *hujson.Value, path, format string, args ...any) {
	e := &Error{Source: p.source, Path: path, Msg: fmt.Sprintf(format, args...)}
	if v != nil {
		e.Line, e.Col = p.pos(v.StartOffset)
	}
	p.errs = append(p.errs, e)
}

// warn records a warning as "path: msg".
func (p *parser) warn(path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	p.warns = append(p.warns, msg)
}

// where describes v's position for messages that point at a second place.
func (p *parser) where(v *hujson.Value) string {
	if line, col := p.pos(v.StartOffset); line > 0 {
		return fmt.Sprintf("%d:%d", line, col)
	}
	return ""
}

// dupKey reports a key seen twice in one object (JSON allows it, but which one wins is
// a guess we would rather not make). It returns true for the duplicate.
func (p *parser) dupKey(seen map[string]*hujson.Value, m *hujson.ObjectMember, path string) bool {
	key := keyOf(m)
	if first, ok := seen[key]; ok {
		if at := p.where(first); at != "" {
			p.errAt(&m.Name, path, "duplicate key (first at %s)", at)
		} else {
			p.errAt(&m.Name, path, "duplicate key")
		}
		return true
	}
	seen[key] = &m.Name
	return false
}

// groupKeys are the top-level keys that hold a map of servers, one per shape.
var groupKeys = map[string]bool{"mcpServers": true, "servers": true, "services": true}

// pending is one server entry found during shape detection.
type pending struct {
	name string
	path string
	key  *hujson.Value // the name, for positions of name-level problems
	val  *hujson.Value
}

// top detects the shape, reads settings and then every server entry in file order.
func (p *parser) top(root *hujson.Value, cfg *Config) {
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		p.errAt(root, "", "top level must be an object")
		return
	}
	for i := range obj.Members {
		if k := keyOf(&obj.Members[i]); groupKeys[k] && cfg.Shape == "" {
			cfg.Shape = k
		}
	}
	bare := cfg.Shape == ""
	if bare {
		cfg.Shape = "bare"
	}

	var entries []pending
	seen := map[string]*hujson.Value{}
	for i := range obj.Members {
		m := &obj.Members[i]
		key := keyOf(m)
		if p.dupKey(seen, m, key) {
			continue
		}
		if known := p.nearKey(key, &m.Value, bare); known != "" {
			p.errAt(&m.Name, key, "unknown top-level key: did you mean %q?", known)
			continue
		}
		switch {
		case key == "switchboard":
			p.settings(&m.Value, &cfg.Settings)
		case key == "$schema":
			// Editors' schema hint: nothing to do.
		case bare:
			if _, ok := m.Value.Value.(*hujson.Object); !ok {
				p.errAt(&m.Value, key, "want an object (a server entry)")
				continue
			}
			entries = append(entries, pending{name: key, path: key, key: &m.Name, val: &m.Value})
		case groupKeys[key]:
			entries = p.group(m, key, entries)
		case key == "inputs":
			p.declareInputs(&m.Value)
		default:
			// Hosts keep their own settings next to mcpServers (Claude Desktop's
			// "globalShortcut"); not ours to judge.
			p.warnAt(&m.Name, key, "unknown top-level key (ignored)")
		}
	}
	p.servers(entries, cfg)
	p.checkProfileServers(cfg)
}

// topKeys are the top-level keys with a meaning, for did-you-mean.
var topKeys = []string{"mcpServers", "servers", "services", "switchboard", "inputs"}

// nearKey returns the known top-level key that key is most likely a typo of: one edit
// away (see oneEdit) ignoring case ("mcpservers", "mcpServer", "switchbaord"); "" if
// none. In a bare map every key is a server name, so there only a value that is not a
// server entry (no command, url or type) counts: {"server": {"command": ...}} is a
// server called "server".
func (p *parser) nearKey(key string, v *hujson.Value, bare bool) string {
	for _, k := range topKeys {
		if key == k || !oneEdit(strings.ToLower(key), strings.ToLower(k)) {
			continue
		}
		if bare {
			obj, ok := v.Value.(*hujson.Object)
			if !ok {
				return ""
			}
			for i := range obj.Members {
				switch keyOf(&obj.Members[i]) {
				case "command", "url", "type", "transport":
					return ""
				}
			}
		}
		return k
	}
	return ""
}

// oneEdit reports whether a and b are at most one insertion, deletion, substitution or
// swap of neighbours apart (the typos people make).
func oneEdit(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if len(a) == len(b) {
		return i == len(a) || a[i+1:] == b[i+1:] ||
			(i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:])
	}
	return a[i:] == b[i+1:]
}

// group collects the entries of one of mcpServers/servers/services.
func (p *parser) group(m *hujson.ObjectMember, key string, entries []pending) []pending {
	if isNull(&m.Value) {
		return entries // what encoding/json makes of a nil map: no servers
	}
	obj, ok := m.Value.Value.(*hujson.Object)
	if !ok {
		p.errAt(&m.Value, key, "want an object of servers")
		return entries
	}
	for i := range obj.Members {
		sm := &obj.Members[i]
		name := keyOf(sm)
		entries = append(entries, pending{name: name, path: key + "." + name, key: &sm.Name, val: &sm.Value})
	}
	return entries
}

// servers checks names across all groups and parses each entry.
func (p *parser) servers(entries []pending, cfg *Config) {
	first := map[string]pending{}
	for _, e := range entries {
		if e.name == "" {
			p.errAt(e.key, strings.TrimSuffix(e.path, "."), "empty server name")
			continue
		}
		if f, dup := first[e.name]; dup {
			at := f.path
			if w := p.where(f.key); w != "" {
				at += ", " + w
			}
			p.errAt(e.key, e.path, "duplicate server name (also defined at %s)", at)
			continue
		}
		first[e.name] = e
		// The gateway's own entry, when the file is shared with a host that launches
		// Switchboard: connecting to ourselves would loop.
		if strings.HasPrefix(strings.ToLower(e.name), "switchboard") {
			cfg.Skipped = append(cfg.Skipped, e.name)
			continue
		}
		if s, ok := p.entry(e.name, e.path, e.val); ok {
			cfg.Servers = append(cfg.Servers, s)
		}
	}
}

// settings reads the top-level "switchboard" object.
func (p *parser) settings(v *hujson.Value, st *Settings) {
	if isNull(v) {
		return
	}
	p.members(v, "switchboard", func(key, path string, v *hujson.Value) {
		switch key {
		case "naming":
			s, ok := asString(v)
			if !ok {
				p.errAt(v, path, "want a string")
				return
			}
			switch n := Naming(strings.ToLower(s)); n {
			case "", NamingAuto, NamingNever, NamingAlways:
				st.Naming = n
			default:
				p.errAt(v, path, "unknown naming %q (want auto, never or always)", s)
			}
		case "heartbeat":
			st.Heartbeat = disableOnZero(p.duration(v, path, zeroOff))
		case "retryFailed":
			st.RetryFailed = disableOnZero(p.duration(v, path, zeroOff))
		case "maxArgumentDepth":
			if n, ok := p.count(v, path, 1); ok {
				st.MaxArgumentDepth = n
			}
		case "model":
			p.modelSettings(v, path, &st.Model)
		case "agent":
			p.agentSettings(v, path, &st.Agent)
		case "sessions":
			p.sessionSettings(v, path, &st.Sessions)
		case "deferred":
			if d := p.deferredSettings(v, path); d != nil {
				st.Deferred = *d
			}
		case "search":
			p.searchSettings(v, path, &st.Search)
		case "serve":
			p.serveSettings(v, path, &st.Serve)
		case "profiles":
			st.Profiles = p.profiles(v, path)
		default:
			// Kept so a newer file still loads, and callers can read what they know.
			c := v.Clone()
			c.Minimize()
			if st.Extra == nil {
				st.Extra = map[string]json.RawMessage{}
			}
			st.Extra[key] = json.RawMessage(c.Pack())
			p.warnAt(v, path, "unknown setting (ignored)")
		}
	})
}

// Small accessors over hujson values, so the walkers read like the schema.

func keyOf(m *hujson.ObjectMember) string {
	s, _ := asString(&m.Name)
	return s
}

func asString(v *hujson.Value) (string, bool) {
	lit, ok := v.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		return "", false
	}
	return lit.String(), true
}

func asBool(v *hujson.Value) (b, ok bool) {
	lit, ok := v.Value.(hujson.Literal)
	if !ok {
		return false, false
	}
	switch lit.Kind() {
	case 't':
		return true, true
	case 'f':
		return false, true
	}
	return false, false
}

func isNull(v *hujson.Value) bool {
	lit, ok := v.Value.(hujson.Literal)
	return ok && lit.Kind() == 'n'
}
