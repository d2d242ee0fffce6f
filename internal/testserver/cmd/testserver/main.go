// Command testserver is a real MCP server, built with the official Go SDK,
// whose misbehaviour is controlled by flags. Switchboard's tests use it as a
// peer to exercise supervision: restarts, crashes, hangs, orphaned
// grandchildren, garbage on stdout, ignored signals and so on.
//
// By default it serves MCP over stdio until the client closes stdin (or a
// signal kills it). With --http it serves Streamable HTTP at /mcp and legacy
// SSE at /sse instead, and prints "LISTENING http://HOST:PORT" as its first
// stdout line.
//
// Tools that are always registered: echo, add, sleep, fail, big, pid,
// add_tool, add_tool_later, remove_tool, crash, stderr. See tools.go; --resource-link
// adds link, --extras resources, a template and prompts (extras.go), --ask adds ask
// (ask.go), --meta adds meta (meta.go). With --proxy TARGET it serves TARGET's tools
// instead, through a plain SDK client (see proxy.go).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Exit codes used by the test server.
const (
	exitUsage        = 1 // bad flags or a setup failure
	exitCrashAtStart = 2 // --crash-at-start
	exitCrashTool    = 3 // the crash tool
	exitDieAfter     = 4 // --die-after N
)

// garbageLine is written to stdout before every JSON message with --garbage.
const garbageLine = "debug: garbage"

// config holds the parsed command line.
type config struct {
	name          string
	tools         []string
	initDelay     time.Duration
	hangInit      bool
	crashAtStart  bool
	dieAfter      int
	garbage       bool
	pidfile       string
	grandchild    bool
	ignoreSigterm bool
	ignoreEOF     bool
	httpAddr      string
	requireHeader string
	// requireProtocol: HTTP requests after initialize must carry MCP-Protocol-Version.
	requireProtocol bool
	// stateless: /mcp keeps no session and opens no GET stream, as a server behind a
	// load balancer does.
	stateless     bool
	pageSize      int
	noPing        bool
	slowLists     time.Duration
	resourceLink  bool
	extras        bool
	ask           bool
	meta          bool
	proxyTarget   string
	proxyProtocol string
	proxy         *proxy // connected by run when proxyTarget is set
}

func parseFlags(args []string) (*config, error) {
	fs := flag.NewFlagSet("testserver", flag.ContinueOnError)
	c := &config{}
	var tools string
	fs.StringVar(&c.name, "name", "testserver", "server implementation name")
	fs.StringVar(&tools, "tools", "", "comma-separated extra echo tools to register")
	fs.DurationVar(&c.initDelay, "init-delay", 0, "sleep this long before answering initialize")
	fs.BoolVar(&c.hangInit, "hang-init", false, "never answer anything (read stdin until EOF, then exit 0)")
	fs.BoolVar(&c.crashAtStart, "crash-at-start", false, "write a fatal message to stderr and exit 2 before serving")
	fs.IntVar(&c.dieAfter, "die-after", 0, "exit 4 right after answering the N-th tools/call")
	fs.BoolVar(&c.garbage, "garbage", false, "print non-JSON lines to stdout before and while serving")
	fs.StringVar(&c.pidfile, "pidfile", "", "write own pid to this file at start")
	fs.BoolVar(&c.grandchild, "grandchild", false, "spawn an unwaited \"sleep 3600\" grandchild (pid in PIDFILE.grandchild)")
	fs.BoolVar(&c.ignoreSigterm, "ignore-sigterm", false, "ignore SIGTERM")
	fs.BoolVar(&c.ignoreEOF, "ignore-stdin-eof", false, "keep running after the stdio session ends")
	fs.StringVar(&c.httpAddr, "http", "", "serve Streamable HTTP (/mcp) and SSE (/sse) at this address")
	fs.StringVar(&c.requireHeader, "require-header", "", "HTTP only: reject requests without header NAME=VALUE (401)")
	fs.BoolVar(&c.requireProtocol, "require-protocol-header", false, "HTTP only: answer 400 to requests after initialize without an MCP-Protocol-Version header")
	fs.BoolVar(&c.stateless, "stateless", false, "HTTP only: serve /mcp statelessly (no session id, no GET stream)")
	fs.IntVar(&c.pageSize, "page-size", 0, "tools/list page size (0: SDK default)")
	fs.DurationVar(&c.slowLists, "slow-lists", 0, "sleep this long (or until the request is cancelled) before answering resources/list, resources/templates/list and prompts/list")
	fs.BoolVar(&c.noPing, "no-ping", false, "answer ping with a JSON-RPC \"method not found\" error, as servers of the 2026-07-28 era do")
	fs.BoolVar(&c.resourceLink, "resource-link", false, "list the resource "+linkedURI+" and register the tool link, whose result links to it and embeds it")
	fs.BoolVar(&c.extras, "extras", false, "list resources (text, markup, image, binary, failing, slow), a resource template and prompts under "+extrasURI+" (extras.go)")
	fs.BoolVar(&c.ask, "ask", false, "register the tool ask, which asks the client's user a question (elicitation/create, form or URL mode) during the call")
	fs.BoolVar(&c.meta, "meta", false, "register the tool meta, which answers with the request's params._meta and, over HTTP, its traceparent header")
	fs.StringVar(&c.proxyTarget, "proxy", "", "serve, instead of its own tools, those of the MCP server at this URL (Streamable HTTP) or command (stdio), forwarded by a plain SDK client")
	fs.StringVar(&c.proxyProtocol, "proxy-protocol", "", "--proxy: the protocol version its client asks for (default: the SDK's newest)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	for _, t := range strings.Split(tools, ",") {
		if t = strings.TrimSpace(t); t != "" {
			c.tools = append(c.tools, t)
		}
	}
	if c.requireHeader != "" {
		if name, _, ok := strings.Cut(c.requireHeader, "="); !ok || name == "" {
			return nil, fmt.Errorf("--require-header wants NAME=VALUE, got %q", c.requireHeader)
		}
	}
	if c.dieAfter < 0 || c.pageSize < 0 {
		return nil, errors.New("--die-after and --page-size must not be negative")
	}
	return c, nil
}

func main() {
	c, err := parseFlags(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(exitUsage)
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(exitUsage)
	}
}

func run(c *config) error {
	// Signal disposition first, so that a pidfile that exists means the
	// disposition is already in place.
	if c.ignoreSigterm {
		signal.Ignore(syscall.SIGTERM)
	}
	if c.grandchild {
		if err := spawnGrandchild(c.pidfile); err != nil {
			return err
		}
	}
	if c.pidfile != "" {
		if err := writePID(c.pidfile, os.Getpid()); err != nil {
			return err
		}
	}
	if c.crashAtStart {
		fmt.Fprintln(os.Stderr, "testserver: starting up")
		fmt.Fprintln(os.Stderr, "fatal: crash requested")
		fmt.Fprintln(os.Stderr, "testserver: exiting with status 2")
		os.Exit(exitCrashAtStart)
	}
	if c.proxyTarget != "" {
		// The GC setting of switchboard's binary, so that the floor the benchmarks
		// compare with is as tuned as the gateway.
		if os.Getenv("GOGC") == "" {
			debug.SetGCPercent(400)
		}
		p, err := connectProxy(c.proxyTarget, c.proxyProtocol)
		if err != nil {
			return err
		}
		defer p.session.Close()
		c.proxy = p
	}
	if c.httpAddr != "" {
		return serveHTTP(c)
	}
	return serveStdio(c)
}

// serveStdio runs one MCP session over stdin/stdout.
func serveStdio(c *config) error {
	if c.hangInit {
		// Never speak; just swallow stdin until the peer closes it.
		_, _ = io.Copy(io.Discard, os.Stdin)
		if c.ignoreEOF {
			blockForever()
		}
		return nil
	}
	if c.garbage {
		fmt.Fprintln(os.Stdout, "Server starting...")
	}
	if c.initDelay > 0 {
		time.Sleep(c.initDelay)
	}
	server := newServer(c)
	var transport mcp.Transport = &mcp.StdioTransport{}
	if c.garbage {
		transport = &mcp.IOTransport{
			Reader: os.Stdin,
			Writer: &garbageWriter{w: os.Stdout},
		}
	}
	// Run returns when the client closes stdin (or the connection breaks).
	// An error here is not interesting for a test peer: report and go on.
	if err := server.Run(context.Background(), transport); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "testserver: session ended:", err)
	}
	if c.ignoreEOF {
		blockForever()
	}
	return nil
}

// newServer builds the MCP server with all tools and middleware.
func newServer(c *config) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: c.name, Version: "v0.0.1"}, &mcp.ServerOptions{
		PageSize: c.pageSize,
	})
	if c.proxy != nil {
		c.proxy.register(server)
	} else {
		registerTools(server, c.tools)
	}
	if c.dieAfter > 0 {
		server.AddReceivingMiddleware(dieAfterMiddleware(c.dieAfter))
	}
	if c.resourceLink {
		registerLinkTool(server)
	}
	if c.extras {
		registerExtras(server, c.name)
	}
	if c.ask {
		registerAskTool(server)
	}
	if c.meta {
		registerMetaTool(server)
	}
	if c.noPing {
		server.AddReceivingMiddleware(noPingMiddleware)
	}
	if c.slowLists > 0 {
		server.AddReceivingMiddleware(slowListsMiddleware(c.slowLists))
	}
	return server
}

// noPingMiddleware refuses ping the way a server without it does: a JSON-RPC error.
// Each refusal is a stderr line, "testserver: ping refused", so that tests see the
// pings arrive.
func noPingMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "ping" {
			fmt.Fprintln(os.Stderr, "testserver: ping refused")
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: `"ping" is not supported`}
		}
		return next(ctx, method, req)
	}
}

// slowListsMiddleware holds the lists other than tools/list for d, so that a client
// is still listing when it is closed.
func slowListsMiddleware(d time.Duration) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "resources/list", "resources/templates/list", "prompts/list":
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

// dieAfterMiddleware exits the process shortly after the n-th tools/call has
// been answered. The handler returns first, so the SDK writes the response;
// the exit happens 50ms later on another goroutine.
func dieAfterMiddleware(n int) mcp.Middleware {
	var calls atomic.Int64
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/call" && calls.Add(1) == int64(n) {
				go func() {
					time.Sleep(50 * time.Millisecond)
					fmt.Fprintf(os.Stderr, "testserver: dying after %d tools/call\n", n)
					os.Exit(exitDieAfter)
				}()
			}
			return res, err
		}
	}
}

// garbageWriter writes a non-JSON line before each write. The SDK's stdio
// connection writes each JSON-RPC message (with its newline) in one Write
// call, so every message is preceded by a garbage line.
type garbageWriter struct {
	w io.Writer
}

func (g *garbageWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(g.w, garbageLine+"\n"); err != nil {
		return 0, err
	}
	return g.w.Write(p)
}

// Close does not close stdout: the process may keep running (--ignore-stdin-eof).
func (g *garbageWriter) Close() error { return nil }

// spawnGrandchild starts `sleep 3600` in our process group and never waits
// for it. Its stdio is /dev/null, so it does not hold our pipes open.
func spawnGrandchild(pidfile string) error {
	cmd := exec.Command("sleep", "3600")
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting grandchild: %w", err)
	}
	if pidfile != "" {
		if err := writePID(pidfile+".grandchild", cmd.Process.Pid); err != nil {
			return err
		}
	}
	// Deliberately neither Wait nor Release: the point is to leave it behind.
	return nil
}

// writePID writes pid to path atomically (temp file + rename), so a reader
// never sees a partial number.
func writePID(path string, pid int) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		return fmt.Errorf("writing pidfile: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing pidfile: %w", err)
	}
	return nil
}

// blockForever parks the process until a signal with default disposition
// (SIGTERM unless ignored, SIGINT, SIGKILL) terminates it. A timer loop is
// used rather than select{} so the runtime never reports a deadlock.
func blockForever() {
	for {
		time.Sleep(time.Hour)
	}
}
