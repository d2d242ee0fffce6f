package api

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/access"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/signin"
	"github.com/switchboard-mcp/switchboard/tool"
)

// What the servers offer besides tools, across all of them, each with its server:
// GET /v1/resources, /v1/resources/templates and /v1/resources/read?uri=, GET
// /v1/prompts and POST /v1/prompts/{name}/get. Names and URIs are the hub's exposed
// ones (hub/extras.go): a resource two servers list is switchboard://SERVER/URI.
//
// A read or a prompt reaches its server with the request's context (its person, its
// cancellation). Its errors: 404 for what no server has; 400 for arguments a prompt
// does not take or misses; 502 when the server answers with an error; 503 when it
// cannot answer (not ready, failed, timed out, connection lost).

// resourceInfo is one resource of GET /v1/resources.
type resourceInfo struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        int64  `json:"size,omitempty"`
	Server      string `json:"server"`
}

// templateInfo is one resource template of GET /v1/resources/templates.
type templateInfo struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Server      string `json:"server"`
}

// contentInfo is one part of a read: text as text, anything else as base64 in blob.
type contentInfo struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     []byte  `json:"blob,omitempty"` // base64, as encoding/json writes []byte
}

// promptInfo is one prompt of GET /v1/prompts.
type promptInfo struct {
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	Arguments   []argumentInfo `json:"arguments"`
	Server      string         `json:"server"`
}

// argumentInfo is one argument of a prompt.
type argumentInfo struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required"`
}

// messageInfo is one message of a prompt: its content as MCP encodes it, and as
// text (tool.Text's rendering: text as is, "[Image: mime]" for an image, …).
type messageInfo struct {
	Role    mcp.Role    `json:"role"`
	Content mcp.Content `json:"content"`
	Text    string      `json:"text"`
}

func (s *Server) listResources(w http.ResponseWriter, r *http.Request) {
	all, acc := s.hub.OwnedResources(), access.FromContext(r.Context())
	out := make([]resourceInfo, 0, len(all))
	for _, o := range all {
		if !acc.Server(o.Server) {
			continue
		}
		x := o.Item
		out = append(out, resourceInfo{URI: x.URI, Name: x.Name, Title: x.Title, Description: x.Description, MIMEType: x.MIMEType, Size: x.Size, Server: o.Server})
	}
	writeJSON(w, http.StatusOK, map[string]any{"resources": out})
}

func (s *Server) listResourceTemplates(w http.ResponseWriter, r *http.Request) {
	all, acc := s.hub.OwnedResourceTemplates(), access.FromContext(r.Context())
	out := make([]templateInfo, 0, len(all))
	for _, o := range all {
		if !acc.Server(o.Server) {
			continue
		}
		x := o.Item
		out = append(out, templateInfo{URITemplate: x.URITemplate, Name: x.Name, Title: x.Title, Description: x.Description, MIMEType: x.MIMEType, Server: o.Server})
	}
	writeJSON(w, http.StatusOK, map[string]any{"templates": out})
}

// readResource reads ?uri= from the server that has it (a listed resource's URI, or
// one that a template matches).
func (s *Server) readResource(w http.ResponseWriter, r *http.Request) {
	uri := r.URL.Query().Get("uri")
	if uri == "" {
		writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, "uri: missing; give the URI of a resource (GET /v1/resources lists them) or one that a template of GET /v1/resources/templates makes")
		return
	}
	server, ok := s.hub.ResourceServer(uri)
	if !ok || !access.FromContext(r.Context()).Server(server) {
		writeError(w, r, http.StatusNotFound, apiwire.CodeNotFound, fmt.Sprintf("unknown resource %q: no server lists it and no template matches it (GET /v1/resources and /v1/resources/templates list them)", uri))
		return
	}
	res, err := s.hub.ReadResource(r.Context(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		writeAPIError(w, r, serverError(err, server, fmt.Sprintf("reading %q", uri), true))
		return
	}
	s.logOf(r.Context()).Info("resource read over the API", "server", server, "uri", uri)
	out := make([]contentInfo, 0, len(res.Contents))
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		ci := contentInfo{URI: c.URI, MIMEType: c.MIMEType}
		if c.Blob != nil {
			ci.Blob = c.Blob
		} else {
			ci.Text = &c.Text
		}
		out = append(out, ci)
	}
	writeJSON(w, http.StatusOK, map[string]any{"uri": uri, "server": server, "contents": out})
}

func (s *Server) listPrompts(w http.ResponseWriter, r *http.Request) {
	all, acc := s.hub.OwnedPrompts(), access.FromContext(r.Context())
	out := make([]promptInfo, 0, len(all))
	for _, o := range all {
		if acc.Server(o.Server) {
			out = append(out, promptInfoOf(o))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"prompts": out})
}

func promptInfoOf(o hub.Owned[*mcp.Prompt]) promptInfo {
	p := o.Item
	args := make([]argumentInfo, 0, len(p.Arguments))
	for _, a := range p.Arguments {
		if a != nil {
			args = append(args, argumentInfo{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
		}
	}
	return promptInfo{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: args, Server: o.Server}
}

// getPrompt gets a prompt with {"arguments": {"NAME": "VALUE", ...}} (optional when
// it needs none): its messages, each also as text.
func (s *Server) getPrompt(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Arguments map[string]any `json:"arguments"`
	}
	if e := s.decodeBody(w, r, &body, true); e != nil {
		writeAPIError(w, r, e)
		return
	}
	name := r.PathValue("name")
	p, e := s.findPrompt(r.Context(), name)
	if e != nil {
		writeAPIError(w, r, e)
		return
	}
	args, e := promptArguments(p, body.Arguments)
	if e != nil {
		writeAPIError(w, r, e)
		return
	}
	res, err := s.hub.GetPrompt(r.Context(), &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		writeAPIError(w, r, serverError(err, p.Server, fmt.Sprintf("getting the prompt %q", name), false))
		return
	}
	s.logOf(r.Context()).Info("prompt got over the API", "server", p.Server, "prompt", name, "arguments", slices.Sorted(maps.Keys(args)))
	msgs := make([]messageInfo, 0, len(res.Messages))
	for _, m := range res.Messages {
		if m == nil {
			continue
		}
		msgs = append(msgs, messageInfo{Role: m.Role, Content: m.Content, Text: tool.Text(&tool.Result{Content: []mcp.Content{m.Content}})})
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": name, "server": p.Server, "description": res.Description, "messages": msgs})
}

// findPrompt is the prompt of that exposed name, or a 404 with the closest names
// (or, when none is close, the names there are).
func (s *Server) findPrompt(ctx context.Context, name string) (promptInfo, *apiError) {
	all, acc := s.hub.OwnedPrompts(), access.FromContext(ctx)
	names := make([]tool.Tool, 0, len(all))
	for _, o := range all {
		if !acc.Server(o.Server) {
			continue // as unknown to the caller as a prompt nobody has
		}
		if o.Item.Name == name {
			return promptInfoOf(o), nil
		}
		names = append(names, tool.Tool{Name: o.Item.Name, OriginalName: o.Item.Name})
	}
	e := errorf(http.StatusNotFound, apiwire.CodeNotFound, "unknown prompt %q (GET /v1/prompts lists them)", name)
	if e.Suggestions = hub.Suggest(name, names, 3); len(e.Suggestions) == 0 {
		for _, t := range names[:min(len(names), 10)] {
			e.Suggestions = append(e.Suggestions, t.Name)
		}
	}
	return promptInfo{}, e
}

// promptArguments checks the arguments given against those p takes: each a string,
// each one it takes, none it requires missing. A 400 names the argument.
func promptArguments(p promptInfo, given map[string]any) (map[string]string, *apiError) {
	takes := make([]string, 0, len(p.Arguments))
	for _, a := range p.Arguments {
		takes = append(takes, a.Name)
	}
	args := make(map[string]string, len(given))
	for _, k := range slices.Sorted(maps.Keys(given)) {
		if !slices.Contains(takes, k) {
			if len(takes) == 0 {
				return nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "arguments: the prompt %q takes no arguments, not %q", p.Name, k)
			}
			return nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "arguments: the prompt %q takes no argument %q (it takes %s)", p.Name, k, strings.Join(takes, ", "))
		}
		v, ok := given[k].(string)
		if !ok {
			return nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "arguments: %q is %s; prompt arguments are strings", k, jsonKind(given[k]))
		}
		args[k] = v
	}
	for _, a := range p.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "arguments: %q is required by the prompt %q", a.Name, p.Name)
		}
	}
	return args, nil
}

// serverError is the answer to a failed read (read) or prompt: a JSON-RPC error
// from the server is the server's answer (404 when it has no such resource, 400 when
// it refuses a prompt's arguments, else 502); any other is the server not
// answering (503). The message names the server and what failed; the hub has
// masked the secrets it knows of.
func serverError(err error, server, what string, read bool) *apiError {
	if ns := (*signin.NeedsSignInError)(nil); errors.As(err, &ns) {
		// The caller's own sign-in (a "perUser" server), or the service's: the
		// message says how to make it. Not a 401, which is about this API's token.
		return errorf(http.StatusForbidden, apiwire.CodeSignInNeeded, "%s: %v", what, ns)
	}
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		return errorf(http.StatusServiceUnavailable, apiwire.CodeUnavailable, "%s: server %q did not answer: %v", what, server, err)
	}
	switch {
	case read && (rpc.Code == jsonrpc.CodeInvalidParams || rpc.Code == legacyResourceNotFound):
		// A server's "not found" (or the hub's, for a URI it routed to the only server
		// with resources).
		return errorf(http.StatusNotFound, apiwire.CodeNotFound, "%s: server %q has no such resource (%s)", what, server, rpc.Message)
	case !read && rpc.Code == jsonrpc.CodeInvalidParams:
		return errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s: server %q refused the arguments: %s", what, server, rpc.Message)
	}
	return errorf(http.StatusBadGateway, apiwire.CodeUpstreamError, "%s: server %q failed: %s", what, server, rpc.Message)
}

// legacyResourceNotFound is the code of "resource not found" before the
// specification made it invalid params (SEP-2164); servers of older SDKs send it.
const legacyResourceNotFound = -32002

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a string"
}
