package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/switchboard-mcp/switchboard/access"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/deferred"
	"github.com/switchboard-mcp/switchboard/format"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/search"
	"github.com/switchboard-mcp/switchboard/tool"
)

// healthz: the process answers. Nothing else is checked: an orchestrator restarts a
// process whose liveness fails, and a server that is down is no reason for that.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, apiwire.Probe{Status: "alive"})
}

// readyz: 503 while a server marked "required" is not ready or the session store
// does not answer, so that a load balancer sends no traffic to a replica without the
// tools it must have or the sessions it keeps.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	var waiting []string
	for _, st := range s.hub.Status() {
		if srv, ok := s.hub.Server(st.Name); ok && srv.Required && st.State != hub.Ready {
			waiting = append(waiting, st.Name)
		}
	}
	storeErr := s.pingStore(r.Context())
	if len(waiting) > 0 || storeErr != nil {
		body := apiwire.Probe{Status: "not ready", Waiting: waiting}
		if storeErr != nil {
			body.Store = storeErr.Error()
		}
		writeJSON(w, http.StatusServiceUnavailable, body)
		return
	}
	writeJSON(w, http.StatusOK, apiwire.Probe{Status: "ready"})
}

// health is the report the systems Switchboard replaces give at /health, with
// "status": "ok" when every enabled server is ready, else "degraded". It needs no
// token, as in those systems; why a server is not ready (an address, a path, what
// it printed) goes only to a caller who could ask GET /v1/servers.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	h := s.hub
	body := apiwire.Health{Status: "ok", Version: s.opts.Version, MCPTools: len(h.Tools()), Servers: map[string]apiwire.ServerHealth{}}
	why := s.mayCall(r)
	for _, st := range h.Status() {
		if st.State != hub.Ready && st.State != hub.Disabled {
			body.Status = "degraded"
		}
		sh := apiwire.ServerHealth{State: apiwire.State(st.State), Tools: st.Tools}
		if why {
			sh.Error = h.NotReadyReason(st)
		}
		body.Servers[st.Name] = sh
	}
	if s.opts.Sessions != nil {
		// "error" alone: /readyz says why.
		body.Store = "ok"
		if s.pingStore(r.Context()) != nil {
			body.Store, body.Status = "error", "degraded"
		}
	}
	writeJSON(w, http.StatusOK, body)
}

// serverInfo is one server as /v1/servers shows it: its status (state, transport,
// tools, restarts, last error, stderr tail …), why it is not ready, and whether the
// service needs it. The stderr tail is an admin's only (serverInfo); the flapping
// fields come from flapping.go, the sign-in ones from signin.go. The name stays for
// the handlers that embed it.
type serverInfo = apiwire.Server

// serverInfo is st as the request of ctx may see it. With identities on, the stderr
// tail is left out for all but admins, as the server's log is: a server may write
// what anyone's calls sent to it. Left out, not emptied, so that it never reads as
// "wrote nothing". The last error is kept: the stderr it may quote is that of a
// process that failed before it took any call (upstream's attemptError).
func (s *Server) serverInfo(ctx context.Context, st hub.Status) serverInfo {
	if !identity.Admin(ctx) {
		st.Stderr = nil
	}
	srv, _ := s.hub.Server(st.Name)
	info := serverInfo{ServerStatus: hub.WireStatus(st), Reason: s.hub.NotReadyReason(st), Required: srv.Required, SignIn: s.signInOf(st)}
	var until time.Time
	info.RecentRestarts, until = s.live.servers.flapping(st.Name)
	if !until.IsZero() {
		info.Flapping, info.FlappingUntil = true, &until
	}
	return info
}

func (s *Server) listServers(w http.ResponseWriter, r *http.Request) {
	sts := s.hub.Status()
	out := make([]serverInfo, 0, len(sts))
	acc := access.FromContext(r.Context())
	for _, st := range sts {
		if acc.Server(st.Name) { // a server outside the caller's profiles is not theirs to see
			out = append(out, s.ownSignIn(r, s.serverInfo(r.Context(), st)))
		}
	}
	writeJSON(w, http.StatusOK, apiwire.Servers{Servers: out})
}

// findServer is the status of the server named in the path, or a 404 naming the
// servers there are: of those the caller's profiles reach (access.FromContext), as
// for a server that is not there.
func (s *Server) findServer(ctx context.Context, name string) (hub.Status, *apiError) {
	var names []string
	acc := access.FromContext(ctx)
	for _, st := range s.hub.Status() {
		if !acc.Server(st.Name) {
			continue
		}
		if st.Name == name {
			return st, nil
		}
		names = append(names, st.Name)
	}
	e := errorf(http.StatusNotFound, apiwire.CodeNotFound, "unknown server %q", name)
	e.Suggestions = names
	return hub.Status{}, e
}

func (s *Server) getServer(w http.ResponseWriter, r *http.Request) {
	st, e := s.findServer(r.Context(), r.PathValue("name"))
	if e != nil {
		writeAPIError(w, r, e)
		return
	}
	writeJSON(w, http.StatusOK, s.ownSignIn(r, s.serverInfo(r.Context(), st)))
}

// restartServer stops the server and starts it again; it answers 202 with the new
// connection's status (connecting) without waiting for it.
func (s *Server) restartServer(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if _, e := s.findServer(r.Context(), name); e != nil {
		writeAPIError(w, r, e)
		return
	}
	if err := s.hub.Restart(name); err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, hub.ErrClosed) {
			status = http.StatusServiceUnavailable
		}
		writeError(w, r, status, apiwire.CodeRestartFailed, err.Error())
		return
	}
	s.logOf(r.Context()).Info("server restarted over the API", "server", name)
	st, e := s.findServer(r.Context(), name)
	if e != nil { // removed meanwhile by a reload
		writeAPIError(w, r, e)
		return
	}
	writeJSON(w, http.StatusAccepted, s.serverInfo(r.Context(), st))
}

// listTools is the catalog as `switchboard tools --json` prints it, or with
// ?format=mcp|openai|openai-responses|anthropic as that provider's API takes it
// (&strict=1: OpenAI strict mode).
func (s *Server) listTools(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var p format.Provider
	if f := q.Get("format"); f != "" {
		var err error
		if p, err = format.ParseProvider(f); err != nil {
			writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, "format: "+err.Error())
			return
		}
	}
	strict, e := boolParam(q.Get("strict"), "strict")
	if e != nil {
		writeAPIError(w, r, e)
		return
	}
	if strict && p != format.OpenAI && p != format.OpenAIResponses {
		writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, "strict needs format=openai or format=openai-responses")
		return
	}
	v, err := Catalog(access.FromContext(r.Context()).Tools(s.hub.Tools()), p, strict)
	if err != nil {
		writeError(w, r, http.StatusUnprocessableEntity, apiwire.CodeFormatFailed, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// boolParam reads a query flag: "", 0, false are false; 1, true are true.
func boolParam(v, name string) (bool, *apiError) {
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s=%s: want 1 or 0 (true or false)", name, v)
	}
	return b, nil
}

// callTool calls one tool with {"arguments": {...}}. A tool's own failure is a 200
// with isError, as MCP reports it; an unknown tool is a 404 with the closest names;
// arguments nested past the hub's bound are a 400, and reach no server.
// A call waits for the server that owns the tool while it is still starting.
func (s *Server) callTool(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if e := s.decodeBody(w, r, &body, true); e != nil {
		writeAPIError(w, r, e)
		return
	}
	args := bytes.TrimSpace(body.Arguments)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	} else if args[0] != '{' {
		writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, `"arguments" must be a JSON object`)
		return
	}
	h, name := s.hub, r.PathValue("name")
	if err := h.CheckArguments(args); err != nil {
		h.AuditRefused(r.Context(), name, args)
		writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, err.Error())
		return
	}
	acc := access.FromContext(r.Context())
	t, err := h.WaitTool(r.Context(), name)
	var unknown *hub.UnknownToolError
	switch {
	case err == nil && !acc.Tool(t):
		// Outside the caller's profiles: the 404 of a tool nobody has, never run.
		unknown = &hub.UnknownToolError{Name: name}
		fallthrough
	case errors.As(err, &unknown):
		h.AuditRefused(r.Context(), name, args)
		if !acc.All() { // the closest names among those the caller reaches only
			unknown = &hub.UnknownToolError{Name: name, Suggestions: hub.Suggest(name, acc.Tools(h.Tools()), 3)}
		}
		writeAPIError(w, r, &apiError{Status: http.StatusNotFound, Code: apiwire.CodeUnknownTool, Message: unknown.Error(), Suggestions: unknown.Suggestions})
		return
	case err != nil:
		writeError(w, r, http.StatusServiceUnavailable, apiwire.CodeUnavailable, err.Error())
		return
	}
	start := time.Now()
	res, err := h.Call(r.Context(), name, args)
	if err != nil {
		writeError(w, r, http.StatusServiceUnavailable, apiwire.CodeUnavailable, err.Error())
		return
	}
	s.recordAPICall(name, identity.Owner(r.Context()), start, res)
	writeJSON(w, http.StatusOK, resultJSON(res))
}

// resultJSON is res as the API writes it: its text as a model gets it, and the MCP
// result's own parts as MCP encodes them (encoded once, by writeJSON).
func resultJSON(res *tool.Result) apiwire.CallResult {
	var content any = res.Content
	if len(res.Content) == 0 {
		content = []struct{}{} // [], never null
	}
	return apiwire.CallResult{Text: tool.Text(res), Content: content, StructuredContent: res.StructuredContent, IsError: res.IsError}
}

// searchTools ranks the catalog against ?q= (or matches the regular expression with
// &regex=1), as the tool_search tools of deferred mode do; &limit=N (1 to
// search.MaxLimit; left out: 5, or 10 for a regex).
func (s *Server) searchTools(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 0 // the search's default
	if l := q.Get("limit"); l != "" {
		// 0 is refused, not taken as the default: the search package reads 0 as
		// "unset", but a client that writes limit=0 asked for something else.
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > search.MaxLimit {
			writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, fmt.Sprintf("limit=%s: want a whole number from 1 to %d (or no limit, for the default)", l, search.MaxLimit))
			return
		}
		limit = n
	}
	regex, e := boolParam(q.Get("regex"), "regex")
	if e != nil {
		writeAPIError(w, r, e)
		return
	}
	// The best of the tools the caller's profiles reach (package access).
	found, err := deferred.Find(r.Context(), s.opts.Catalog.Index(), s.opts.Embeddings, q.Get("q"), regex, limit,
		access.FromContext(r.Context()).Keep())
	if err != nil {
		writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, err.Error())
		return
	}
	out := apiwire.SearchResults{Results: make([]apiwire.SearchResult, 0, len(found))}
	for _, f := range found {
		out.Results = append(out.Results, apiwire.SearchResult{Name: f.Tool.Name, Server: f.Tool.Server,
			OriginalName: f.Tool.OriginalName, Description: f.Tool.Description, Score: f.Score})
	}
	writeJSON(w, http.StatusOK, out)
}
