package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"text/tabwriter"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/host"
)

// The commands of remote.go as they run against a service: each asks the API what
// the local command asks its own hub, and prints it the same way.

// servers is GET /v1/servers: every server's status, and why each is not ready.
func (r *remote) servers(ctx context.Context) ([]apiwire.Server, error) {
	var body apiwire.Servers
	if err := r.getJSON(ctx, "/v1/servers", &body); err != nil {
		return nil, failed(err)
	}
	return body.Servers, nil
}

// statuses are the servers' statuses alone, as the status lines (hubcmd.go) take
// them from a local host too.
func statuses(infos []apiwire.Server) []apiwire.ServerStatus {
	out := make([]apiwire.ServerStatus, len(infos))
	for i, s := range infos {
		out[i] = s.ServerStatus
	}
	return out
}

// tools is GET /v1/tools: the catalog.
func (r *remote) tools(ctx context.Context) ([]apiwire.ToolInfo, error) {
	var tools []apiwire.ToolInfo
	if err := r.getJSON(ctx, "/v1/tools", &tools); err != nil {
		return nil, failed(err)
	}
	return tools, nil
}

// remoteTools is `tools` against the service: the JSON forms as the API writes them
// (the same bytes as the local command's, from the one api.Catalog that
// Host.ToolCatalog is), the table from the catalog and the servers' states.
func (a *app) remoteTools(ctx context.Context, p host.Provider, asJSON, strict bool) error {
	r := a.remote
	if p != "" || asJSON {
		q := url.Values{}
		if p != "" {
			q.Set("format", string(p))
		}
		if strict {
			q.Set("strict", "1")
		}
		path := "/v1/tools"
		if len(q) > 0 {
			path += "?" + q.Encode()
		}
		b, err := r.getBytes(ctx, path)
		if err != nil {
			return failed(err)
		}
		_, err = a.stdout.Write(b)
		return err
	}
	tools, err := r.tools(ctx)
	if err != nil {
		return err
	}
	infos, err := r.servers(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tSERVER\tDESCRIPTION")
	for _, t := range tools {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, t.Server, firstLine(t.Description, 80))
	}
	tw.Flush()
	fmt.Fprintln(a.stdout, toolsSummary(len(tools), statuses(infos)))
	return nil
}

// remoteCall is `call` against the service: POST /v1/tools/{name}/call. An unknown
// tool and arguments the service refuses are usage errors (2), a tool's error result
// a failure (1), as they are here.
func (a *app) remoteCall(ctx context.Context, name string, args json.RawMessage, asJSON bool) error {
	var body apiwire.CallResult
	res, err := a.remote.do(ctx, http.MethodPost, "/v1/tools/"+url.PathEscape(name)+"/call", map[string]json.RawMessage{"arguments": args}, "")
	if err != nil {
		var ae *apiError
		switch {
		case errors.As(err, &ae) && ae.Code == apiwire.CodeUnknownTool:
			return usageError("%v; run 'switchboard tools' to list them", ae.Message)
		case errors.As(err, &ae) && ae.Status == http.StatusBadRequest:
			return usageError("ARGS: %v", ae.Message)
		}
		return failed(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return a.remote.lost(ctx, err)
	}
	// The MCP result as MCP encodes it, the same value the local command prints.
	var result host.CallToolResult
	if err := a.remote.decode("/v1/tools/"+name+"/call", raw, &result); err != nil {
		return err
	}
	if asJSON {
		if err := writeJSON(a.stdout, &result); err != nil {
			return err
		}
	} else {
		if err := a.remote.decode("/v1/tools/"+name+"/call", raw, &body); err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, body.Text)
	}
	if result.IsError {
		return silentExit(exitFailed)
	}
	return nil
}

// remoteStatus is `status` against the service: the servers' states as they are now
// (the service waits for nobody), with the tools each offers to the catalog.
func (a *app) remoteStatus(ctx context.Context, asJSON bool) error {
	infos, err := a.remote.servers(ctx)
	if err != nil {
		return err
	}
	tools, err := a.remote.tools(ctx)
	if err != nil {
		return err
	}
	exposed := map[string]int{}
	for _, t := range tools {
		exposed[t.Server]++
	}
	rows := make([]serverStatusJSON, 0, len(infos))
	for _, s := range infos {
		rows = append(rows, statusRow(s.ServerStatus, exposed[s.Name], s.Reason))
	}
	if err := a.writeStatus(rows, len(tools), asJSON); err != nil {
		return err
	}
	if len(notReady(statuses(infos))) > 0 {
		return silentExit(exitFailed)
	}
	return nil
}

// remoteSearcher answers queries with GET /v1/search.
type remoteSearcher struct {
	r     *remote
	tools int // the catalog's size, for "searched N tools"
}

// remoteSearch is `search` against the service: the same checks of the query first,
// then the service's ranking (lexical: the service's search endpoint does not use the
// config's embeddings).
func (a *app) remoteSearch(ctx context.Context, q searchQuery, stdin io.Reader, asJSON bool) error {
	tools, err := a.remote.tools(ctx)
	if err != nil {
		return err
	}
	infos, err := a.remote.servers(ctx)
	if err != nil {
		return err
	}
	if sts := statuses(infos); len(notReady(sts)) > 0 {
		fmt.Fprintf(a.stderr, "switchboard search: searching %s\n", toolsSummary(len(tools), sts))
	}
	s := &remoteSearcher{r: a.remote, tools: len(tools)}
	if q.text == "" {
		return s.stdin(ctx, stdin, a.stdout, q)
	}
	found, err := s.find(ctx, q)
	if err != nil {
		return err
	}
	if asJSON {
		if err := writeJSON(a.stdout, searchLine{Query: q.text, Results: resultsJSON(found)}); err != nil {
			return err
		}
	} else {
		writeFound(a.stdout, q, found, s.tools)
	}
	if len(found) == 0 {
		return silentExit(exitFailed)
	}
	return nil
}

// find runs q at the service: a query the command line refuses is a usage error
// before it is sent, and so is one the service refuses (400).
func (s *remoteSearcher) find(ctx context.Context, q searchQuery) ([]apiwire.SearchResult, error) {
	if err := q.check(); err != nil {
		return nil, usageError("%v", err)
	}
	v := url.Values{"q": {q.text}}
	if q.regex {
		v.Set("regex", "1")
	}
	if q.limit > 0 {
		v.Set("limit", strconv.Itoa(q.limit))
	}
	var body apiwire.SearchResults
	if err := s.r.getJSON(ctx, "/v1/search?"+v.Encode(), &body); err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.Status == http.StatusBadRequest {
			return nil, usageError("%v", ae.Message)
		}
		return nil, failed(err)
	}
	return body.Results, nil
}

// stdin is searcher.stdin against the service: a query that the command line or
// the service refuses (a usage error) is its line's error; the service failing ends
// the run.
func (s *remoteSearcher) stdin(ctx context.Context, r io.Reader, w io.Writer, q searchQuery) error {
	return answerQueries(ctx, r, w, q, s.find, func(err error) bool {
		var ee *exitError
		return errors.As(err, &ee) && ee.code == exitUsage
	})
}

// remoteSessions is `sessions` against the service: its /v1/sessions routes, which
// show the caller's own sessions (everyone's to an admin, or without identities).
func (a *app) remoteSessions(ctx context.Context, args []string, asJSON bool) error {
	r := a.remote
	notFound := func(err error) error {
		var ae *apiError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			return usageError("%v (run 'switchboard sessions' to list them)", ae.Message)
		}
		return failed(err)
	}
	switch {
	case len(args) == 2 && args[0] == "show":
		var s host.Session
		if err := r.getJSON(ctx, "/v1/sessions/"+url.PathEscape(args[1]), &s); err != nil {
			return notFound(err)
		}
		if asJSON {
			return writeJSON(a.stdout, &s)
		}
		a.printSession(&s)
		return nil
	case len(args) == 2 && args[0] == "rm":
		if err := r.send(ctx, http.MethodDelete, "/v1/sessions/"+url.PathEscape(args[1]), nil, nil); err != nil {
			return notFound(err)
		}
		fmt.Fprintf(a.stdout, "removed %s\n", args[1])
		return nil
	}
	var body struct {
		Sessions []host.SessionSummary `json:"sessions"`
	}
	if err := r.getJSON(ctx, "/v1/sessions", &body); err != nil {
		return failed(err)
	}
	if body.Sessions == nil {
		body.Sessions = []host.SessionSummary{}
	}
	return a.writeSessions(body.Sessions, asJSON)
}
