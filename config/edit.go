package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tailscale/hujson"
)

// Edits of a config file's bytes: one server entry added, changed by a merge patch
// (RFC 7396) or removed, and nothing else touched. The file's syntax tree (hujson)
// is edited in place and packed as it is, never formatted again, so that every
// comment, blank line, trailing comma and odd indentation outside the entry stays
// byte for byte; the values written are the caller's, raw ("${TOKEN}" stays a
// reference). The result is not checked here: Parse it, as the file is.

// NotFoundError is an edit of a server that the file does not have.
type NotFoundError struct {
	Name  string
	Names []string // the servers the file has, in file order
}

func (e *NotFoundError) Error() string {
	if len(e.Names) == 0 {
		return fmt.Sprintf("no server %q (the config has none)", e.Name)
	}
	return fmt.Sprintf("no server %q (the config has %s)", e.Name, strings.Join(e.Names, ", "))
}

// ExistsError is the addition of a server whose name the file has already.
type ExistsError struct{ Name string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("a server %q exists already: change it with a patch, or choose another name", e.Name)
}

// AddServer returns data with the server entry name: entry (a JSON object, written
// as given) added at the end of the file's servers, in the file's shape: under its
// "mcpServers", "servers" or "services", or at the top of a bare map; a file with
// no servers yet (empty, or "{}") gets "mcpServers". An *ExistsError when the
// file has that name.
func AddServer(data []byte, name string, entry json.RawMessage) ([]byte, error) {
	val, err := entryValue(entry, "the server entry")
	if err != nil {
		return nil, err
	}
	root, err := parseDoc(data)
	if err != nil {
		return nil, err
	}
	if _, _, ok := findServer(&root, name); ok {
		return nil, &ExistsError{Name: name}
	}
	top := root.Value.(*hujson.Object)
	unit := indentUnit(top)
	var group *hujson.Object
	closeIndent := ""
	switch gi := memberIndex(top, groupKeyOf(top)); {
	case gi >= 0:
		group = serverGroup(top)
		closeIndent, _ = lineIndent(top.Members[gi].Name.BeforeExtra)
	case hasBareServers(top):
		group = top
	default:
		closeIndent = memberIndent(top, "", unit)
		g := addMember(top, "", unit, "mcpServers", hujson.Value{Value: &hujson.Object{}})
		group = g.Value.(*hujson.Object)
	}
	addMember(group, closeIndent, unit, name, val)
	return pack(root), nil
}

// PatchServer returns data with the merge patch (RFC 7396, a JSON object) applied
// to the entry of server name: a field set to null is removed, an object merged
// key by key (env and headers keep the keys the patch does not name), anything
// else replaced. Fields the patch leaves alone keep their bytes. A
// *NotFoundError when the file has no such server.
func PatchServer(data []byte, name string, patch json.RawMessage) ([]byte, error) {
	return editServer(data, name, patch, "the patch", func(target *hujson.Value, p hujson.Value, ind, unit string) {
		if _, isObj := target.Value.(*hujson.Object); !isObj {
			target.Value = &hujson.Object{}
		}
		mergePatch(target.Value.(*hujson.Object), p.Value.(*hujson.Object), ind, unit)
	})
}

// RemoveServer returns data without the entry of server name (the comments on the
// lines of its own go with it; one at the end of the line before it stays). A
// *NotFoundError when the file has no such server.
func RemoveServer(data []byte, name string) ([]byte, error) {
	root, obj, i, err := locateServer(data, name)
	if err != nil {
		return nil, err
	}
	removeMember(obj, i)
	return pack(root), nil
}

// ServerEntry is the entry of server name as the file has it, as standard JSON
// (comments left out; ${VAR} references as written). A *NotFoundError when the
// file has no such server.
func ServerEntry(data []byte, name string) (json.RawMessage, error) {
	_, obj, i, err := locateServer(data, name)
	if err != nil {
		return nil, err
	}
	v := obj.Members[i].Value.Clone()
	v.Standardize()
	v.Minimize()
	return json.RawMessage(v.Pack()), nil
}

// ServerNames are the names of the servers in the file, in file order (those the
// config skips included).
func ServerNames(data []byte) ([]string, error) {
	root, err := parseDoc(data)
	if err != nil {
		return nil, err
	}
	return serverNames(&root), nil
}

// EntryOf is s as a server entry of a config file, for a config made in code (the
// built-in demo's) that has no file: what Parse reads back as s, for the fields a
// file can say ("oauth" left out). Its values are the expanded ones s holds.
func EntryOf(s Server) json.RawMessage {
	e := fileEntry{
		Type: string(s.Transport), Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd,
		URL: s.URL, Headers: s.Headers, ForwardIdentity: s.ForwardIdentity, Disabled: s.Disabled, Description: s.Description,
		Timeout: durationText(s.InitTimeout), ToolTimeout: durationText(s.ToolTimeout),
		Prefix: s.Prefix, Required: s.Required, Approve: s.Approve, Sampling: s.Sampling, Pinned: s.Pinned,
	}
	if !s.InheritEnv {
		e.InheritEnv = new(bool)
	}
	switch {
	case s.Heartbeat < 0:
		e.Heartbeat = 0
	case s.Heartbeat > 0:
		e.Heartbeat = s.Heartbeat.String()
	}
	if len(s.Tools.Allow) > 0 || len(s.Tools.Deny) > 0 {
		e.Tools = &fileTools{Allow: s.Tools.Allow, Deny: s.Tools.Deny}
	}
	data, _ := json.Marshal(e) // strings, slices and maps of strings: never fails
	return data
}

// fileEntry is a server entry as a file has it (EntryOf).
type fileEntry struct {
	Type       string            `json:"type,omitempty"`
	Command    string            `json:"command,omitempty"`
	Args       []string          `json:"args,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	Cwd        string            `json:"cwd,omitempty"`
	InheritEnv *bool             `json:"inheritEnv,omitempty"`
	URL        string            `json:"url,omitempty"`
	Headers    map[string]string `json:"headers,omitempty"`
	// ForwardIdentity: "forwardIdentity".
	ForwardIdentity bool       `json:"forwardIdentity,omitempty"`
	Disabled        bool       `json:"disabled,omitempty"`
	Description     string     `json:"description,omitempty"`
	Timeout         string     `json:"timeout,omitempty"`
	ToolTimeout     string     `json:"toolTimeout,omitempty"`
	Heartbeat       any        `json:"heartbeat,omitempty"`
	Tools           *fileTools `json:"tools,omitempty"`
	Prefix          string     `json:"prefix,omitempty"`
	Required        bool       `json:"required,omitempty"`
	Approve         []string   `json:"approve,omitempty"`
	Sampling        bool       `json:"sampling,omitempty"`
	Pinned          []string   `json:"pinned,omitempty"`
}

type fileTools struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

func durationText(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return d.String()
}

// WriteFileAtomic replaces the file at path with data as one step: a temporary file
// in the same directory, written, synced and renamed over it, with the mode the
// file had (0600 for a new one). A reader sees the old content or the new, never a
// part. A symbolic link is followed: the file it points to is replaced.
func WriteFileAtomic(path string, data []byte) (err error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	// The rename itself survives a crash once the directory is synced (where a
	// directory can be opened for it: not on Windows).
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// entryValue parses raw, which must be a JSON object.
func entryValue(raw json.RawMessage, what string) (hujson.Value, error) {
	v, err := hujson.Parse(raw)
	if err != nil {
		return v, fmt.Errorf("%s is not JSON: %v", what, err)
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return v, fmt.Errorf("%s must be a JSON object", what)
	}
	return v, nil
}

// parseDoc parses a config file's bytes; an empty file is an empty object.
func parseDoc(data []byte) (hujson.Value, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	root, err := hujson.Parse(data)
	if err != nil {
		return root, fmt.Errorf("the config does not parse: %v", err)
	}
	if _, ok := root.Value.(*hujson.Object); !ok {
		return root, errors.New("the config's top level is not an object")
	}
	return root, nil
}

func pack(root hujson.Value) []byte { return root.Pack() }

// nonServerKeys are the top-level keys of a bare map that are not servers.
var nonServerKeys = map[string]bool{"switchboard": true, "$schema": true}

// groupKeyOf is the file's shape as Parse detects it: its first group key, or "".
func groupKeyOf(top *hujson.Object) string {
	for i := range top.Members {
		if k := keyOf(&top.Members[i]); groupKeys[k] {
			return k
		}
	}
	return ""
}

// serverGroup is the object of the file's group key (a null made an empty object),
// or nil for a file without one.
func serverGroup(top *hujson.Object) *hujson.Object {
	i := memberIndex(top, groupKeyOf(top))
	if i < 0 {
		return nil
	}
	v := &top.Members[i].Value
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		obj = &hujson.Object{}
		v.Value = obj
	}
	return obj
}

// hasBareServers reports whether a file without a group key has servers at its top.
func hasBareServers(top *hujson.Object) bool {
	for i := range top.Members {
		if !nonServerKeys[keyOf(&top.Members[i])] {
			return true
		}
	}
	return false
}

// groups are the objects that hold the file's servers: those of its group keys, or
// the top object of a bare map.
func groups(root *hujson.Value) []*hujson.Object {
	top := root.Value.(*hujson.Object)
	if groupKeyOf(top) == "" {
		return []*hujson.Object{top}
	}
	var out []*hujson.Object
	for i := range top.Members {
		if groupKeys[keyOf(&top.Members[i])] {
			if obj, ok := top.Members[i].Value.Value.(*hujson.Object); ok {
				out = append(out, obj)
			}
		}
	}
	return out
}

// findServer finds server name's member: the object that holds it, and its index.
func findServer(root *hujson.Value, name string) (*hujson.Object, int, bool) {
	bare := groupKeyOf(root.Value.(*hujson.Object)) == ""
	for _, g := range groups(root) {
		for i := range g.Members {
			k := keyOf(&g.Members[i])
			if k == name && !(bare && nonServerKeys[k]) {
				return g, i, true
			}
		}
	}
	return nil, 0, false
}

func serverNames(root *hujson.Value) []string {
	bare := groupKeyOf(root.Value.(*hujson.Object)) == ""
	var names []string
	for _, g := range groups(root) {
		for i := range g.Members {
			if k := keyOf(&g.Members[i]); !(bare && nonServerKeys[k]) {
				names = append(names, k)
			}
		}
	}
	return names
}

// memberIndex is the index of obj's member key, or -1.
func memberIndex(obj *hujson.Object, key string) int {
	if key == "" {
		return -1
	}
	for i := range obj.Members {
		if keyOf(&obj.Members[i]) == key {
			return i
		}
	}
	return -1
}

// indentUnit is one level of the file's indentation: that of its top object's
// members when they are on lines of their own, else two spaces.
func indentUnit(top *hujson.Object) string {
	if len(top.Members) > 0 {
		if ind, ok := lineIndent(top.Members[0].Name.BeforeExtra); ok && ind != "" {
			return ind
		}
	}
	return "  "
}

// lineIndent is the white space that starts the last line of e, when e has a line
// break.
func lineIndent(e hujson.Extra) (string, bool) {
	i := bytes.LastIndexByte(e, '\n')
	if i < 0 {
		return "", false
	}
	rest := e[i+1:]
	n := 0
	for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
		n++
	}
	return string(rest[:n]), true
}

// memberIndent is the indentation of obj's members: its last member's, when on a
// line of its own, else one unit deeper than closeIndent, the indentation of the
// line that opens obj.
func memberIndent(obj *hujson.Object, closeIndent, unit string) string {
	for i := len(obj.Members) - 1; i >= 0; i-- {
		if ind, ok := lineIndent(obj.Members[i].Name.BeforeExtra); ok {
			return ind
		}
	}
	return closeIndent + unit
}

// splitLine splits e at its first line break: what ends the line before (a
// comment), and the rest from the break on. Without a break, head is "".
func splitLine(e hujson.Extra) (head, rest string) {
	i := bytes.IndexByte(e, '\n')
	if i < 0 {
		return "", string(e)
	}
	return strings.TrimRight(string(e[:i]), " \t\r"), string(e[i:])
}

// addMember appends key: val to obj on a line of its own, laid out in the file's
// indentation (closeIndent opens obj's line, unit is one level), keeping whether
// obj has a trailing comma and a comment that ended its last line there. It
// returns the new member's value.
func addMember(obj *hujson.Object, closeIndent, unit, key string, val hujson.Value) *hujson.Value {
	ind := memberIndent(obj, closeIndent, unit)
	layout(&val, ind, unit)
	val.BeforeExtra = hujson.Extra(" ")
	head, rest := splitLine(obj.AfterExtra)
	if !strings.Contains(rest, "\n") {
		// "{}", or a one-line object: it becomes one of lines.
		head = strings.TrimRight(rest, " \t")
		rest = "\n" + closeIndent
	}
	n := len(obj.Members)
	if n > 0 && obj.Members[n-1].Value.AfterExtra != nil {
		val.AfterExtra = hujson.Extra{} // the file's trailing comma, kept
	}
	obj.Members = append(obj.Members, hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: hujson.Extra(head + "\n" + ind), Value: hujson.String(key)},
		Value: val,
	})
	obj.AfterExtra = hujson.Extra(rest)
	return &obj.Members[n].Value
}

// removeMember removes obj's member i with the comments on its lines; a comment
// that ended the line before it stays.
func removeMember(obj *hujson.Object, i int) {
	gone := obj.Members[i]
	head, _ := splitLine(gone.Name.BeforeExtra)
	obj.Members = slices.Delete(obj.Members, i, i+1)
	if i < len(obj.Members) {
		next := &obj.Members[i].Name
		_, rest := splitLine(next.BeforeExtra) // drops a comment at the end of gone's line
		if head != "" && !strings.HasPrefix(rest, "\n") {
			rest = "\n" + rest
		}
		next.BeforeExtra = hujson.Extra(head + rest)
		return
	}
	// gone was the last: the one before it is now, with gone's trailing comma or none.
	if i > 0 {
		prev := &obj.Members[i-1].Value
		switch {
		case gone.Value.AfterExtra == nil && len(prev.AfterExtra) == 0:
			prev.AfterExtra = nil
		case gone.Value.AfterExtra != nil && prev.AfterExtra == nil:
			prev.AfterExtra = hujson.Extra{}
		}
	}
	_, rest := splitLine(obj.AfterExtra)
	if !strings.Contains(string(obj.AfterExtra), "\n") {
		rest = string(obj.AfterExtra)
	}
	after := head + rest
	if len(obj.Members) == 0 && strings.TrimSpace(after) == "" {
		after = ""
	}
	obj.AfterExtra = hujson.Extra(after)
}

// mergePatch applies patch to obj as RFC 7396 says, member by member, leaving the
// members it does not name as they are, bytes and all.
func mergePatch(obj, patch *hujson.Object, closeIndent, unit string) {
	ind := memberIndent(obj, closeIndent, unit)
	for j := range patch.Members {
		key, pv := keyOf(&patch.Members[j]), patch.Members[j].Value
		i := memberIndex(obj, key)
		pObj, pIsObj := pv.Value.(*hujson.Object)
		switch {
		case isNull(&pv):
			if i >= 0 {
				removeMember(obj, i)
			}
		case i >= 0 && pIsObj && isObjectValue(&obj.Members[i].Value):
			mergePatch(obj.Members[i].Value.Value.(*hujson.Object), pObj, ind, unit)
		case i >= 0:
			nv := withoutNulls(pv)
			layout(&nv, ind, unit)
			obj.Members[i].Value.Value = nv.Value
		default:
			addMember(obj, closeIndent, unit, key, withoutNulls(pv))
		}
	}
}

func isObjectValue(v *hujson.Value) bool {
	_, ok := v.Value.(*hujson.Object)
	return ok
}

// withoutNulls is v with the null members of its objects removed: what a merge
// patch's object becomes where the target has none (RFC 7396).
func withoutNulls(v hujson.Value) hujson.Value {
	v = v.Clone()
	var strip func(*hujson.Value)
	strip = func(v *hujson.Value) {
		obj, ok := v.Value.(*hujson.Object)
		if !ok {
			return
		}
		obj.Members = slices.DeleteFunc(obj.Members, func(m hujson.ObjectMember) bool { return isNull(&m.Value) })
		for i := range obj.Members {
			strip(&obj.Members[i].Value)
		}
	}
	strip(&v)
	return v
}

// layout lays out a new value at indentation ind: an object's members one a line,
// an array of scalars on one line, other arrays one element a line; no comments,
// no trailing commas.
func layout(v *hujson.Value, ind, unit string) {
	v.BeforeExtra, v.AfterExtra = nil, nil
	switch x := v.Value.(type) {
	case *hujson.Object:
		x.AfterExtra = nil
		for i := range x.Members {
			m := &x.Members[i]
			m.Name.BeforeExtra, m.Name.AfterExtra = hujson.Extra("\n"+ind+unit), nil
			layout(&m.Value, ind+unit, unit)
			m.Value.BeforeExtra = hujson.Extra(" ")
		}
		if len(x.Members) > 0 {
			x.AfterExtra = hujson.Extra("\n" + ind)
		}
	case *hujson.Array:
		x.AfterExtra = nil
		flat := true
		for i := range x.Elements {
			if _, lit := x.Elements[i].Value.(hujson.Literal); !lit {
				flat = false
			}
		}
		for i := range x.Elements {
			e := &x.Elements[i]
			layout(e, ind+unit, unit)
			switch {
			case !flat:
				e.BeforeExtra = hujson.Extra("\n" + ind + unit)
			case i > 0:
				e.BeforeExtra = hujson.Extra(" ")
			}
		}
		if !flat && len(x.Elements) > 0 {
			x.AfterExtra = hujson.Extra("\n" + ind)
		}
	}
}
