package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveHTTP serves Streamable HTTP at /mcp and legacy SSE at /sse until
// SIGTERM (unless ignored) or SIGINT, then exits 0.
func serveHTTP(c *config) error {
	sigs := []os.Signal{syscall.SIGINT}
	if !c.ignoreSigterm {
		sigs = append(sigs, syscall.SIGTERM)
	}
	ctx, stop := signal.NotifyContext(context.Background(), sigs...)
	defer stop()

	ln, err := net.Listen("tcp", c.httpAddr)
	if err != nil {
		return err
	}
	server := newServer(c)
	if c.initDelay > 0 {
		server.AddReceivingMiddleware(initDelayMiddleware(c.initDelay))
	}
	getServer := func(*http.Request) *mcp.Server { return server }

	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: c.stateless}))
	// The SSE handler serves the event stream at /sse and per-session message
	// endpoints below it (/sse?sessionid=...).
	mux.Handle("/sse", mcp.NewSSEHandler(getServer, nil))

	var handler http.Handler = mux
	if c.hangInit {
		handler = hangHandler()
	}
	if c.garbage {
		handler = garbageHandler(handler)
	}
	if c.requireHeader != "" {
		name, value, _ := strings.Cut(c.requireHeader, "=")
		handler = requireHeader(handler, name, value)
	}
	if c.requireProtocol {
		handler = requireProtocolHeader(handler)
	}

	// The LISTENING line must be the first stdout line.
	fmt.Fprintf(os.Stdout, "LISTENING http://%s\n", ln.Addr())
	if c.garbage {
		fmt.Fprintln(os.Stdout, "Server starting...")
	}

	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		fmt.Fprintln(os.Stderr, "testserver: signal received, shutting down")
		// Streams (SSE, standalone GET) never go idle, so a graceful
		// Shutdown would just wait; give it a moment, then close.
		sctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			_ = srv.Close()
		}
		return nil
	case err := <-errc:
		return err
	}
}

// initDelayMiddleware delays the session-establishing requests
// (initialize, and server/discover for the 2026-07-28 protocol).
func initDelayMiddleware(d time.Duration) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "initialize" || method == "server/discover" {
				select {
				case <-time.After(d):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return next(ctx, method, req)
		}
	}
}

// hangHandler accepts every request and never answers.
func hangHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
}

// garbageHandler prints a garbage line to stdout for every request.
func garbageHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(os.Stdout, garbageLine)
		next.ServeHTTP(w, r)
	})
}

// requireHeader rejects requests whose header name does not equal value.
// requireProtocolHeader answers 400 to every request but initialize that does not
// carry the MCP-Protocol-Version header, which clients must send after
// initialization (a server may not otherwise tell which version they speak).
func requireProtocolHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") == "" && r.Method != http.MethodDelete {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var msg struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(body, &msg) != nil || msg.Method != "initialize" {
				http.Error(w, "missing MCP-Protocol-Version header", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(w, r)
	})
}

func requireHeader(next http.Handler, name, value string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(name) != value {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]string{
				"error": fmt.Sprintf("missing or wrong %s header", name),
			})
			return
		}
		next.ServeHTTP(w, r)
	})
}
