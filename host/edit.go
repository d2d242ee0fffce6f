package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host/admin"
)

// A running Host's servers change at run time, as they do when its config file
// changes: AddServer, PatchServer and RemoveServer edit the entry in the file
// (config.AddServer and the others: the file's comments, order and formatting
// kept, the values written as given, ${VAR} references unexpanded), check the
// result as a file is checked (config.Parse), write it atomically, and apply it by
// difference (hub.Reload), one edit or reload at a time. The file is the one
// followed (Follow), else the config's Source when it names a file; the follower
// does not reload what an edit applied. A config without a file (the built-in
// demo's) is changed at run time only: admin.Result.Saved is false, and the change
// lasts until the process ends. A change refused as the request's fault is an
// *admin.Error, whose Kind says why.

// A Host is the API's editor of the servers (api.Options.Servers).
var _ api.ServerEditor = (*Host)(nil)

// editor serializes the edits and the follower's reloads, and keeps what they
// applied last.
type editor struct {
	mu sync.Mutex
	// path is the file followed ("": the config's Source, when a file).
	path string
	// applied is the file's content last applied, or last found not to load: the
	// follower reloads only a content other than it.
	applied []byte
	// doc is the config of a Host without a file, as a document of its own.
	doc []byte
}

// AddServer adds the server name with entry, a JSON object of the fields a config
// file's entry has ("command", "args", "env", "url", "headers", "disabled", ...),
// and starts it. Names that begin with "switchboard" are refused: the config
// leaves them out (they name the gateway itself).
func (h *Host) AddServer(ctx context.Context, name string, entry json.RawMessage) (admin.Result, error) {
	if err := checkName(name); err != nil {
		return admin.Result{}, err
	}
	return h.edit(ctx, name, func(data []byte) ([]byte, error) { return config.AddServer(data, name, entry) })
}

// PatchServer applies the merge patch (RFC 7396, a JSON object) to the entry of
// server name: the fields it names change ("disabled": true stops the server, a
// null removes a field, "env" and "headers" are merged key by key), the server
// restarts when its config changed. Secrets sent as config.Masked (what
// ServerConfig shows for them: env and header values, the url's credentials,
// oauth's clientSecret) are left as they are (config.WithoutMasked).
func (h *Host) PatchServer(ctx context.Context, name string, patch json.RawMessage) (admin.Result, error) {
	return h.edit(ctx, name, func(data []byte) ([]byte, error) {
		stored, _ := config.ServerEntry(data, name) // no such server: PatchServer says so
		p, err := config.WithoutMasked(patch, stored)
		var ce *config.Error
		if errors.As(err, &ce) {
			return nil, &admin.Error{Kind: admin.Invalid, Server: name, Field: ce.Path, Err: fmt.Errorf("server %q: %s: %s", name, ce.Path, ce.Msg)}
		}
		return config.PatchServer(data, name, p)
	})
}

// RemoveServer removes the server name from the config, and stops it.
func (h *Host) RemoveServer(ctx context.Context, name string) (admin.Result, error) {
	return h.edit(ctx, name, func(data []byte) ([]byte, error) { return config.RemoveServer(data, name) })
}

// ServerConfig is the entry of server name as the config file has it (standard
// JSON, comments left out), its secrets (env and header values, the url's
// credentials, oauth's clientSecret) masked unless they are ${VAR} references
// (config.MaskEntry); saved says it comes from a file.
func (h *Host) ServerConfig(name string) (entry json.RawMessage, saved bool, err error) {
	h.ed.mu.Lock()
	defer h.ed.mu.Unlock()
	data, path, err := h.current()
	if err != nil {
		return nil, false, err
	}
	if isSkipped(name) {
		return nil, false, notFound(name, data, path)
	}
	e, err := config.ServerEntry(data, name)
	if err != nil {
		if nf := (*config.NotFoundError)(nil); errors.As(err, &nf) {
			return nil, false, notFound(name, data, path)
		}
		return nil, false, &admin.Error{Kind: admin.ConfigInvalid, Server: name, Err: brokenFile(path, err)}
	}
	return config.MaskEntry(e), path != "", nil
}

// edit makes one change of server name's entry, unless ctx ends while it waits
// for the one before.
func (h *Host) edit(ctx context.Context, name string, change func([]byte) ([]byte, error)) (admin.Result, error) {
	h.ed.mu.Lock()
	defer h.ed.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return admin.Result{}, err
	}
	data, path, err := h.current()
	if err != nil {
		return admin.Result{}, err
	}
	source := path
	if source == "" {
		source = h.cfg.Source
	}
	out, cfg, err := editDoc(data, path, source, name, h.opts.ConfigOptions, change)
	if err != nil {
		return admin.Result{}, err
	}
	res := admin.Result{Saved: path != "", Source: source, Warnings: serverWarnings(cfg.Warnings, source, name)}
	if path != "" {
		if err := config.WriteFileAtomic(path, out); err != nil {
			return admin.Result{}, fmt.Errorf("the change is not made: writing %s: %w", path, err)
		}
		h.ed.applied = out
	} else {
		h.ed.doc = out
		cfg.Settings = h.cfg.Settings // a config made in code keeps its own
	}
	RegisterConfig(cfg, h.log, h.red)
	h.log.Info("servers changed", "server", name, "source", source, "saved", res.Saved)
	if err := h.hub.Reload(cfg); err != nil {
		return res, fmt.Errorf("the change is saved, but applying it failed: %w", err)
	}
	return res, nil
}

// editDoc makes change to data, the config document of server name's edit (read
// from path; "" when it has no file, source naming it then; nil data: a file not
// made yet), after checking that a file loads as it is: the new document, and the
// config it parses as. A refusal that is the edit's fault is an *admin.Error.
func editDoc(data []byte, path, source, name string, opts *config.Options, change func([]byte) ([]byte, error)) ([]byte, *config.Config, error) {
	if path != "" && data != nil {
		if _, err := config.Parse(data, path, opts); err != nil {
			return nil, nil, &admin.Error{Kind: admin.ConfigInvalid, Server: name, Err: brokenFile(path, err)}
		}
	}
	if name != "" && isSkipped(name) {
		// The file may have it, but it is no server of the config's.
		return nil, nil, notFound(name, data, path)
	}
	out, err := change(data)
	var (
		nf *config.NotFoundError
		ex *config.ExistsError
		ee *admin.Error
	)
	switch {
	case errors.As(err, &ee):
		return nil, nil, ee
	case errors.As(err, &nf):
		return nil, nil, notFound(nf.Name, data, path)
	case errors.As(err, &ex):
		return nil, nil, &admin.Error{Kind: admin.Exists, Server: ex.Name, Err: err}
	case err != nil:
		return nil, nil, &admin.Error{Kind: admin.Invalid, Server: name, Err: err}
	}
	cfg, err := config.Parse(out, source, opts)
	switch {
	case err != nil && name == "":
		return nil, nil, &admin.Error{Kind: admin.Invalid, Err: fmt.Errorf("the config would not load after the change:\n%w", err)}
	case err != nil:
		return nil, nil, invalidEntry(name, err)
	}
	return out, cfg, nil
}

// current is the config as a document, and the file it is from ("" for a config
// without one: its own document, made from the servers the Host started with).
func (h *Host) current() (data []byte, path string, err error) {
	path = h.editPath()
	if path == "" {
		if h.ed.doc == nil {
			for _, s := range h.cfg.Servers {
				if h.ed.doc, err = config.AddServer(h.ed.doc, s.Name, config.EntryOf(s)); err != nil {
					return nil, "", err
				}
			}
		}
		return h.ed.doc, "", nil
	}
	data, err = os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("reading the config file: %w", err)
	}
	return data, path, nil
}

// editPath is the file that edits change: the one followed, else the config's
// Source when it is a file; "" when there is none.
func (h *Host) editPath() string {
	if h.ed.path != "" {
		return h.ed.path
	}
	if fi, err := os.Stat(h.cfg.Source); err == nil && fi.Mode().IsRegular() {
		return h.cfg.Source
	}
	return ""
}

// nameRE is what a server added at run time may be called: a name that a URL
// path, a tool's prefix and a log line take as it is.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// checkName refuses a name the config would not take as a server's, or one that
// the routes could not name.
func checkName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return &admin.Error{Kind: admin.Invalid, Field: "name", Err: errors.New(`"name" is required`)}
	case !nameRE.MatchString(name):
		return &admin.Error{Kind: admin.Invalid, Server: name, Field: "name",
			Err: fmt.Errorf(`name %q: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)`, name)}
	case isSkipped(name):
		return &admin.Error{Kind: admin.Invalid, Server: name, Field: "name",
			Err: fmt.Errorf(`name %q: names that begin with "switchboard" are left out of the config (they name the gateway itself): choose another`, name)}
	}
	return nil
}

// isSkipped reports whether the config leaves a server of that name out.
func isSkipped(name string) bool {
	return strings.HasPrefix(strings.ToLower(name), "switchboard")
}

// notFound is the admin.NotFound of name, naming the config's servers.
func notFound(name string, data []byte, path string) error {
	names, _ := config.ServerNames(data)
	var servers []string
	for _, n := range names {
		if !isSkipped(n) {
			servers = append(servers, n)
		}
	}
	where := "the config"
	if path != "" {
		where = path
	}
	msg := fmt.Sprintf("no server %q in %s", name, where)
	if len(servers) > 0 {
		msg += " (it has " + strings.Join(servers, ", ") + ")"
	}
	return &admin.Error{Kind: admin.NotFound, Server: name, Servers: servers, Err: errors.New(msg)}
}

// brokenFile says that the file must be fixed before it is edited.
func brokenFile(path string, err error) error {
	return fmt.Errorf("the config file does not load as it is now; fix it first (servers stay as they are):\n%w", err)
}

// quotedRE finds the first quoted word of a message: the field an entry's own
// problem names (`"command" or "url" is required`).
var quotedRE = regexp.MustCompile(`"([A-Za-z]+)"`)

// invalidEntry is the admin.Invalid of the config's errors after an edit of server
// name: each as "field: message", the field the first one names.
func invalidEntry(name string, err error) error {
	var errs config.Errors
	if !errors.As(err, &errs) || len(errs) == 0 {
		return &admin.Error{Kind: admin.Invalid, Server: name, Err: err}
	}
	var msgs []string
	field := ""
	for _, e := range errs {
		f := fieldOf(e.Path, name)
		if field == "" {
			field = f
			if field == "" {
				if m := quotedRE.FindStringSubmatch(e.Msg); m != nil {
					field = m[1]
				}
			}
		}
		if f != "" {
			msgs = append(msgs, f+": "+e.Msg)
		} else {
			msgs = append(msgs, e.Msg)
		}
	}
	return &admin.Error{Kind: admin.Invalid, Server: name, Field: field, Err: fmt.Errorf("server %q: %s", name, strings.Join(msgs, "; "))}
}

// fieldOf is the part of a config path within server name's entry
// ("mcpServers.x.env.A" → "env.A", "x.command" in a bare map → "command"); "" for
// the entry itself or another place.
func fieldOf(path, name string) string {
	if rest, ok := strings.CutPrefix(path, name+"."); ok {
		return rest
	}
	if i := strings.Index(path, "."+name+"."); i >= 0 {
		return path[i+len(name)+2:]
	}
	return ""
}

// serverWarnings are the warnings about server name's entry in the config read from
// source.
func serverWarnings(warns []string, source, name string) []string {
	var out []string
	for _, w := range warns {
		path, _, _ := strings.Cut(warningAt(w, source), ": ")
		if path == name || strings.HasSuffix(path, "."+name) || fieldOf(path, name) != "" {
			out = append(out, w)
		}
	}
	return out
}

// warningAt is w without its place in source ("mcp.json:3:5: "), when it has one.
func warningAt(w, source string) string {
	rest, ok := strings.CutPrefix(w, source+":")
	if !ok {
		return w
	}
	line, rest, _ := strings.Cut(rest, ":")
	col, rest, _ := strings.Cut(rest, ": ")
	if !allDigits(line) || !allDigits(col) {
		return w
	}
	return rest
}

func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// applyIfNew applies data, the file's content, unless it is what was applied last
// (by an edit, say) and force is false: the follower's reload, under the edits'
// lock.
func (h *Host) applyIfNew(path string, data []byte, trigger string, force bool) {
	h.ed.mu.Lock()
	defer h.ed.mu.Unlock()
	if !force && bytes.Equal(data, h.ed.applied) {
		return
	}
	h.ed.applied = data
	h.reload(path, data, trigger)
}
