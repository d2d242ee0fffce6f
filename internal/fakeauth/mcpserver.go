package fakeauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpMux is the protected MCP server: its tools behind the guard, which checks the
// token of each request as the MCP spec says.
func (s *Server) mcpMux() http.Handler {
	var so *mcp.ServerOptions
	if s.opts.People {
		so = &mcp.ServerOptions{CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{personText(req.Extra)}}}, nil
		}}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "fakeauth", Version: "1.0.0"}, so)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Say the text back."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "write", Description: "Write the text (needs more access than reading)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wrote " + in.Text}}}, nil, nil
		})
	if s.opts.People {
		mcp.AddTool(srv, &mcp.Tool{Name: "person", Description: "Who the caller's token was issued to."},
			func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: personText(req.Extra)}}}, nil, nil
			})
		srv.AddResource(&mcp.Resource{URI: PersonURI, Name: "person", Description: "Who the caller's token was issued to.", MIMEType: "text/plain"},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: personText(req.Extra)}}}, nil
			})
		srv.AddPrompt(&mcp.Prompt{Name: "person", Description: "Who the caller's token was issued to.",
			Arguments: []*mcp.PromptArgument{{Name: "topic"}}},
			func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: personText(req.Extra)}}}}, nil
			})
		mcp.AddTool(srv, &mcp.Tool{Name: "hold", Description: "Answer when the call is cancelled."},
			func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				s.count(Hold)
				select {
				case <-s.holds:
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil, nil
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				}
			})
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami", Description: "The scopes of the caller's token."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			scopes := req.Extra.Header.Get("X-Fakeauth-Scopes")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "scopes: " + scopes}}}, nil, nil
		})
	s.mcp = srv
	get := func(*http.Request) *mcp.Server { return srv }
	mux := http.NewServeMux()
	prm := func(w http.ResponseWriter, r *http.Request) {
		s.count(PRM)
		md := map[string]any{"resource": s.mcpSrv.URL + strings.TrimPrefix(r.URL.Path, "/.well-known/oauth-protected-resource"),
			"authorization_servers": []string{s.Issuer}}
		if s.opts.Resource != "" {
			md["resource"] = s.opts.Resource
		}
		if s.opts.Scopes != nil {
			md["scopes_supported"] = append(slices.Clone(s.opts.Scopes), s.opts.StepUp)
		}
		writeJSON(w, http.StatusOK, md)
	}
	if s.opts.Legacy {
		as := s.authMux()
		mux.Handle("GET /.well-known/oauth-authorization-server", as)
		mux.Handle("/oauth/", http.StripPrefix("/oauth", as))
	} else {
		mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", prm)
		mux.HandleFunc("GET /.well-known/oauth-protected-resource/sse", prm)
	}
	mux.Handle("/mcp", s.guard(mcp.NewStreamableHTTPHandler(get, nil)))
	mux.Handle("/sse", s.guard(mcp.NewSSEHandler(get, nil)))
	return mux
}

// PersonURI is the resource of Options.People that says who the caller's token was
// issued to.
const PersonURI = "fakeauth://person"

// personText says who the token of a request was issued to: "person: WHO" (the
// guard put WHO in the request's PersonHeader).
func personText(e *mcp.RequestExtra) string {
	if e == nil {
		return "person: "
	}
	return "person: " + e.Header.Get(PersonHeader)
}

// guard lets through the requests that carry a valid token with the scopes they
// need, and answers the others as the MCP spec says: 401 with a challenge that names
// the protected resource metadata, or 403 insufficient_scope with the scopes needed.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
			r.Body = io.NopCloser(strings.NewReader(string(body)))
		}
		metadata := s.mcpSrv.URL + "/.well-known/oauth-protected-resource" + r.URL.Path
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		g := s.tokens[tok]
		if g != nil && time.Now().After(g.expiry) {
			delete(s.tokens, tok)
			g = nil
		}
		s.mu.Unlock()
		need := slices.Clone(s.opts.Scopes)
		if s.opts.AlwaysStepUp && len(need) == 0 {
			need = []string{"admin"}
		}
		if s.opts.StepUp != "" && callsTool(body, "write") {
			need = append(need, s.opts.StepUp)
		}
		if g == nil {
			s.count(Refused)
			challenge := fmt.Sprintf("Bearer resource_metadata=%q", metadata)
			if s.opts.Legacy {
				challenge = `Bearer error="invalid_token"`
			}
			if len(s.opts.Scopes) > 0 {
				challenge += fmt.Sprintf(", scope=%q", strings.Join(s.opts.Scopes, " "))
			}
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "no valid bearer token", http.StatusUnauthorized)
			return
		}
		for _, sc := range need {
			if s.opts.AlwaysStepUp || !slices.Contains(g.scopes, sc) {
				s.count(StepUpNeeded)
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, strings.Join(need, " "), metadata))
				http.Error(w, "insufficient scope", http.StatusForbidden)
				return
			}
		}
		s.count(MCP)
		r.Header.Set("X-Fakeauth-Scopes", strings.Join(g.scopes, " "))
		r.Header.Set(PersonHeader, g.person)
		next.ServeHTTP(w, r)
	})
}

// callsTool reports whether a JSON-RPC body is a tools/call of the tool name.
func callsTool(body []byte, name string) bool {
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	return json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" && msg.Params.Name == name
}
