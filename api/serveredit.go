package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/host/admin"
)

// The servers changed at run time (Options.Servers): POST /v1/servers adds one,
// PATCH /v1/servers/{name} changes its fields by a merge patch, DELETE
// /v1/servers/{name} removes it, GET /v1/servers/{name}/config shows its entry as
// the config file has it. Each change is applied at once, by difference, and
// written to the config file (a host.Host's). Admins only when the service has
// identities.

// ServerEditor changes the configured servers (host.Host's AddServer and the
// others, which write the change to the config file). A change refused as the
// request's fault is an *admin.Error, whose Kind the API answers with its status
// (editStatus).
type ServerEditor interface {
	// AddServer adds server name with entry, the fields of a config file's entry
	// ("command", "args", "env", "url", "headers", "disabled", ...), a JSON object.
	AddServer(ctx context.Context, name string, entry json.RawMessage) (admin.Result, error)
	// PatchServer applies a merge patch (RFC 7396) to server name's entry.
	PatchServer(ctx context.Context, name string, patch json.RawMessage) (admin.Result, error)
	// RemoveServer removes server name.
	RemoveServer(ctx context.Context, name string) (admin.Result, error)
	// ServerConfig is server name's entry as the config has it, env and header
	// values masked unless they are ${VAR} references; saved says it is in a file.
	ServerConfig(name string) (entry json.RawMessage, saved bool, err error)
}

// serverChanged is the answer to POST and PATCH: the server's info, whether the
// change is in the config file, and the config's warnings about it.
type serverChanged struct {
	serverInfo
	Saved    bool     `json:"saved"`
	Warnings []string `json:"warnings,omitempty"`
}

// editErrorBody is {"error": {...}} with the field a 400 names.
type editErrorBody struct {
	Error struct {
		Code        string   `json:"code"`
		Message     string   `json:"message"`
		Field       string   `json:"field,omitempty"`
		Suggestions []string `json:"suggestions,omitempty"`
	} `json:"error"`
}

// addServer answers POST /v1/servers {"name", ...the entry's fields}: 201 with the
// new server's info (it starts at once).
func (s *Server) addServer(w http.ResponseWriter, r *http.Request) {
	ed := s.opts.Servers // the routes are there only with one, for admins (routes.go)
	name, entry, err := s.entryBody(w, r)
	if err != nil {
		s.writeEditError(w, r, err)
		return
	}
	ch, err := ed.AddServer(r.Context(), name, entry)
	if err != nil {
		s.writeEditError(w, r, err)
		return
	}
	s.logOf(r.Context()).Info("server added over the API", "server", name, "saved", ch.Saved)
	w.Header().Set("Location", "/v1/servers/"+name)
	s.writeChanged(w, r, http.StatusCreated, name, ch)
}

// patchServer answers PATCH /v1/servers/{name} with a merge patch of its entry:
// 200 with its info.
func (s *Server) patchServer(w http.ResponseWriter, r *http.Request) {
	ed := s.opts.Servers // the routes are there only with one, for admins (routes.go)
	name := r.PathValue("name")
	fields, patch, err := s.objectBody(w, r)
	if err != nil {
		s.writeEditError(w, r, err)
		return
	}
	if _, renames := fields.m["name"]; renames {
		s.writeEditError(w, r, &admin.Error{Kind: admin.Invalid, Server: name, Field: "name",
			Err: errors.New(`"name": a server is not renamed: add it under the new name and remove the old`)})
		return
	}
	ch, err := ed.PatchServer(r.Context(), name, patch)
	if err != nil {
		s.writeEditError(w, r, err)
		return
	}
	s.logOf(r.Context()).Info("server changed over the API", "server", name, "saved", ch.Saved)
	s.writeChanged(w, r, http.StatusOK, name, ch)
}

// removeServer answers DELETE /v1/servers/{name}: 204 once it is stopped.
func (s *Server) removeServer(w http.ResponseWriter, r *http.Request) {
	ed := s.opts.Servers // the routes are there only with one, for admins (routes.go)
	name := r.PathValue("name")
	ch, err := ed.RemoveServer(r.Context(), name)
	if err != nil {
		s.writeEditError(w, r, err)
		return
	}
	s.logOf(r.Context()).Info("server removed over the API", "server", name, "saved", ch.Saved)
	w.WriteHeader(http.StatusNoContent)
}

// serverConfig answers GET /v1/servers/{name}/config: {"config": the entry as the
// config file has it (secrets masked), "saved": whether it is in a file}.
func (s *Server) serverConfig(w http.ResponseWriter, r *http.Request) {
	ed := s.opts.Servers // the routes are there only with one, for admins (routes.go)
	entry, saved, err := ed.ServerConfig(r.PathValue("name"))
	if err != nil {
		s.writeEditError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"config": entry, "saved": saved})
}

// writeChanged answers a change with the server's info now. The event streams hear
// of the change from the hub, as of a reload's (a server it leaves disabled is told
// as disabled there).
func (s *Server) writeChanged(w http.ResponseWriter, r *http.Request, status int, name string, ch admin.Result) {
	out := serverChanged{Saved: ch.Saved, Warnings: ch.Warnings}
	if st, e := s.findServer(r.Context(), name); e == nil {
		out.serverInfo = s.ownSignIn(r, s.serverInfo(r.Context(), st))
	} else {
		out.Name = name
	}
	writeJSON(w, status, out)
}

// writeEditError answers an *admin.Error with the status and code of its kind
// and the field or the names it gives; any other error is a 500.
func (s *Server) writeEditError(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	if errors.As(err, &ae) {
		writeAPIError(w, r, ae)
		return
	}
	var ee *admin.Error
	if !errors.As(err, &ee) {
		s.logOf(r.Context()).Error("changing the servers", "err", err)
		writeError(w, r, http.StatusInternalServerError, apiwire.CodeInternal, err.Error())
		return
	}
	status, code := editStatus(ee.Kind)
	var body editErrorBody
	body.Error.Code, body.Error.Message, body.Error.Field, body.Error.Suggestions = code, ee.Error(), ee.Field, ee.Servers
	writeJSON(w, status, body)
}

// editStatus is the HTTP status and error code of a refused change: 404 for a
// server that is not there, 409 for one that is or a config file to fix first, 400
// for an entry the config does not take.
func editStatus(k admin.Kind) (int, string) {
	switch k {
	case admin.NotFound:
		return http.StatusNotFound, apiwire.CodeNotFound
	case admin.Exists:
		return http.StatusConflict, apiwire.CodeExists
	case admin.ConfigInvalid:
		return http.StatusConflict, apiwire.CodeConfigInvalid
	}
	return http.StatusBadRequest, apiwire.CodeBadRequest
}

// entryBody reads {"name": ..., fields...}: the name, and the rest as the entry,
// in the order sent.
func (s *Server) entryBody(w http.ResponseWriter, r *http.Request) (string, json.RawMessage, error) {
	fields, _, err := s.objectBody(w, r)
	if err != nil {
		return "", nil, err
	}
	var name string
	if raw, ok := fields.m["name"]; !ok || json.Unmarshal(raw, &name) != nil || strings.TrimSpace(name) == "" {
		return "", nil, &admin.Error{Kind: admin.Invalid, Field: "name", Err: errors.New(`"name": want the server's name, a non-empty string`)}
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for _, k := range fields.order {
		if k == "name" {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		b.Write(fields.m[k])
	}
	b.WriteByte('}')
	return name, b.Bytes(), nil
}

// objectFields are a JSON object's members in the order sent.
type objectFields struct {
	order []string
	m     map[string]json.RawMessage
}

// objectBody reads the request's body, a JSON object: its members, and the body.
func (s *Server) objectBody(w http.ResponseWriter, r *http.Request) (objectFields, json.RawMessage, error) {
	var raw json.RawMessage
	if e := s.decodeBody(w, r, &raw, false); e != nil {
		return objectFields{}, nil, e
	}
	fields, err := readObject(raw)
	if err != nil {
		return objectFields{}, nil, errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "%v", err)
	}
	return fields, raw, nil
}

// readObject reads the members of a JSON object, in order.
func readObject(raw json.RawMessage) (objectFields, error) {
	f := objectFields{m: map[string]json.RawMessage{}}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return f, errors.New("the body must be a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return f, fmt.Errorf("malformed JSON: %v", err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return f, fmt.Errorf("malformed JSON: %v", err)
		}
		if _, dup := f.m[key]; dup {
			return f, fmt.Errorf("%q is given twice", key)
		}
		f.order = append(f.order, key)
		f.m[key] = v
	}
	return f, nil
}
