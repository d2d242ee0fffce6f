package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host"
)

func (a *app) mcpCommand() *cobra.Command {
	var (
		listen      string
		stateless   bool
		idle        time.Duration
		token       string
		printConfig string
		watch       time.Duration
		maxRequest  = byteSize(host.DefaultMCPMaxRequestBytes)
		deferred    deferredFlag
	)
	cmd := &cobra.Command{
		Use: "mcp",
		// Long-running: it says what it does as it runs.
		Annotations: map[string]string{logLevelKey: "info"},
		Short:       "Serve every configured server's tools as one MCP server (stdio or HTTP)",
		Long: `Mcp starts every server and serves the merged catalog as one MCP server: over
stdio by default, or with --listen over Streamable HTTP at /mcp and legacy SSE at /sse.

Listening is on loopback unless told otherwise; any other address needs a bearer token
($SWITCHBOARD_TOKEN, or --token, which shows in the process list), and with a token set
every request must carry it.
A client's HTTP session is closed after --session-timeout with none of its requests
under way and no stream open (a client that was killed leaves one behind); a client
that comes back then gets 404 and initializes anew.

The gateway follows its config file: on SIGHUP, and when a check every --watch finds
the file changed, servers added start, removed ones stop, changed ones restart and
the others run on untouched; clients are told the catalog changed. A config that does
not load is logged, and the servers stay as they are.

--deferred (or "deferred" in the config's "switchboard" object) shows every client two
search tools, tool_call and the pinned tools instead of the whole catalog: a client's
searches load what they find into its own list (it is sent tools/list_changed), and any
tool can be called by its exact name, or through tool_call by clients that never list
their tools again. Bare --deferred means always; --deferred=auto defers from 15 tools,
--deferred=auto:10% when the definitions would take over 10% of the model's context
window, --deferred=never turns off what the config asks for.

--print-config claude|codex|vscode prints the snippet that host needs to use this
gateway (with --listen: the HTTP form) and exits.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			token, err := bearerToken(token, a.red)
			if err != nil {
				return err
			}
			if listen != "" {
				if err := checkListenAddr(listen); err != nil {
					return err
				}
			}
			if printConfig != "" {
				var extra []string
				if deferred.set {
					extra = append(extra, "--deferred="+deferred.d.String())
				}
				return a.printGatewayConfig(printConfig, listen, token != "", extra...)
			}
			switch {
			case idle < 0:
				return usageError("--session-timeout %s: must be 0 (never) or more", idle)
			case idle == 0:
				idle = -1 // never; host.MCPOptions takes 0 as its default
			}
			if watch < 0 {
				return usageError("--watch %s: must be 0 (only on SIGHUP) or more", watch)
			}
			if listen != "" && !host.IsLoopback(listen) && token == "" {
				return usageError("--listen %s is not a loopback address: set a bearer token in $%s (or --token)", listen, tokenEnv)
			}
			var gwDeferred *host.DeferredSettings
			if deferred.set {
				gwDeferred = &deferred.d
			}
			s, err := a.openService(watch, nil, gwDeferred)
			if err != nil {
				return err
			}
			defer s.Close()
			if listen == "" {
				return a.serveStdio(cmd.Context(), s)
			}
			// Bound before any server starts: an address in use ends the command
			// at once, and clients that connect meanwhile wait for the servers.
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return usageError("--listen %s: %v", listen, err)
			}
			defer ln.Close() // the bridge's once served; closing twice is harmless
			// Over HTTP the clients are not known in advance: the servers are told
			// every capability the gateway can forward, and a request goes to a
			// client that has it.
			if err := s.startShared(cmd.Context()); err != nil {
				return err
			}
			b, err := s.ServeMCP(ln, &host.MCPOptions{Stateless: stateless, Token: token, SessionTimeout: idle, MaxRequestBytes: int64(maxRequest)})
			if err != nil {
				return err
			}
			defer b.Close()
			a.log.Info("gateway listening", "url", b.URL(), "sse", b.SSEURL(), "tools", len(s.Tools()), "auth", token != "", "deferred", s.deferredMode())
			<-cmd.Context().Done()
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "", "serve over HTTP on this address (e.g. 127.0.0.1:8931) instead of stdio (--addr works too, as for serve)")
	f.SetNormalizeFunc(alias("addr", "listen"))
	f.BoolVar(&stateless, "stateless", false, "Streamable HTTP without sessions for every client (clients of 2026-07-28 have none anyway)")
	f.DurationVar(&idle, "session-timeout", time.Hour, "close a client's HTTP session after this long with no request or stream open (0: never)")
	f.StringVar(&token, "token", "", "bearer token required on every HTTP request"+tokenHelp)
	f.StringVar(&printConfig, "print-config", "", "print the config snippet for claude, codex or vscode and exit")
	f.DurationVar(&watch, "watch", time.Second, "check the config file for changes this often and apply them (0: only on SIGHUP)")
	a.addDataDir(cmd)
	f.Var(&maxRequest, "max-request-size", "largest HTTP request body accepted, in bytes or with a KiB, MiB or GiB suffix (larger ones get 413)")
	f.Var(&deferred, "deferred", `show clients search tools instead of the catalog: always (bare --deferred), auto, auto:N% or never (default: the config's "deferred", else never)`)
	f.Lookup("deferred").NoOptDefVal = host.DeferredAlways
	return cmd
}

// deferredFlag is --deferred[=MODE], a mode as host.ParseDeferredMode reads it.
type deferredFlag struct {
	set bool
	d   host.DeferredSettings
}

func (f *deferredFlag) Set(s string) error {
	d, err := host.ParseDeferredMode(s)
	if err != nil {
		return err
	}
	f.set, f.d = true, d
	return nil
}

func (f *deferredFlag) String() string {
	if !f.set {
		return ""
	}
	return f.d.String()
}

func (f *deferredFlag) Type() string { return "mode" }

// checkListenAddr reports a --listen address that cannot be listened on as written
// (no port, a port that is not a number or service name) as a usage error.
func checkListenAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil && port != "" {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		return usageError("--listen %s: %v (want host:port, e.g. 127.0.0.1:8931)", addr, err)
	}
	return nil
}

// byteSize is a flag value in bytes, written as a number with an optional binary
// suffix (KiB, MiB, GiB; K, M, G and KB, MB, GB mean the same).
type byteSize int64

func (b *byteSize) Set(s string) error {
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range []struct {
		suffixes []string
		mult     int64
	}{{[]string{"KiB", "KB", "K"}, 1 << 10}, {[]string{"MiB", "MB", "M"}, 1 << 20}, {[]string{"GiB", "GB", "G"}, 1 << 30}} {
		for _, suf := range u.suffixes {
			if len(num) > len(suf) && strings.EqualFold(num[len(num)-len(suf):], suf) {
				num, mult = strings.TrimSpace(num[:len(num)-len(suf)]), u.mult
				break
			}
		}
		if mult != 1 {
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return fmt.Errorf("want a size above 0 in bytes, or with a KiB, MiB or GiB suffix")
	}
	*b = byteSize(n * mult)
	return nil
}

func (b *byteSize) String() string {
	n := int64(*b)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b *byteSize) Type() string { return "size" }

// serveStdio serves the gateway to the one client on stdin/stdout. The servers start
// when the client's first request arrives, so that they see its capabilities (some
// servers offer tools according to them); requests wait for the start. When the start
// fails (a required server did not come up, a naming collision), every request gets
// that error (hosts show it) until the client disconnects, and the command ends with
// the start's exit code. The config is followed once the servers have started.
func (a *app) serveStdio(ctx context.Context, s *service) error {
	// Written by the start, read once ServeMCPStdio has waited for it.
	var startErr error
	err := s.ServeMCPStdio(ctx, func(startCtx context.Context, caps *host.ClientCapabilities) error {
		if err := s.start(startCtx, caps); err != nil {
			startErr = err
			return err
		}
		a.log.Info("gateway serving on stdio", "tools", len(s.Tools()), "deferred", s.deferredMode())
		return nil
	})
	if startErr != nil {
		return startErr
	}
	return err
}

// printGatewayConfig prints what a host needs to use this gateway. The token itself is
// never printed: the snippets reference $SWITCHBOARD_TOKEN.
func (a *app) printGatewayConfig(client, listen string, withToken bool, extra ...string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	// The snippet is for later use, elsewhere: what would make it fail there, or
	// not do what the user expects, is said on stderr (stdout stays the snippet).
	warn := func(format string, args ...any) {
		fmt.Fprintf(a.stderr, "switchboard: warning: "+format+"\n", args...)
	}
	args := []string{"mcp"}
	if src := a.configSource(); src != "" {
		abs, err := filepath.Abs(src)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			warn("config file %s: %v: the gateway will not start until it can be read", abs, errors.Unwrap(err))
		}
		args = append(args, "--config", abs)
	} else {
		warn("no config file (--config, $%s, %s): the snippet runs the built-in demo servers", host.EnvConfig, strings.Join(searchPlaces(), ", "))
	}
	args = append(args, extra...)
	url := ""
	if listen != "" {
		host, port, _ := net.SplitHostPort(listen) // checked by checkListenAddr
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			// Listening on every interface: clients need a name they can reach.
			name, err := os.Hostname()
			if err != nil || name == "" {
				name = "HOSTNAME"
			}
			warn("--listen %s serves on every interface; the URL names this host %q: replace it with a name or address your clients reach it by", listen, name)
			host = name
		}
		if port == "0" {
			warn("--listen %s takes a free port at each start: give a fixed port for the URL to stay right", listen)
		}
		url = "http://" + net.JoinHostPort(host, port) + "/mcp"
	}
	const name = "switchboard"
	// jsonEntry is the entry of a host with a JSON config: over HTTP when listening
	// (the token referenced as tokenRef, the host's syntax for a variable), else stdio.
	jsonEntry := func(stdio map[string]any, tokenRef string) map[string]any {
		if url == "" {
			return stdio
		}
		entry := map[string]any{"type": "http", "url": url}
		if withToken {
			entry["headers"] = map[string]string{"Authorization": "Bearer " + tokenRef}
		}
		return entry
	}
	switch client {
	case "claude":
		entry := jsonEntry(map[string]any{"command": exe, "args": args}, "${"+tokenEnv+"}")
		return writeJSON(a.stdout, map[string]any{"mcpServers": map[string]any{name: entry}})
	case "vscode":
		entry := jsonEntry(map[string]any{"type": "stdio", "command": exe, "args": args}, "${env:"+tokenEnv+"}")
		return writeJSON(a.stdout, map[string]any{"servers": map[string]any{name: entry}})
	case "codex":
		var b strings.Builder
		fmt.Fprintf(&b, "[mcp_servers.%s]\n", name)
		if url != "" {
			fmt.Fprintf(&b, "url = %s\n", tomlString(url))
			if withToken {
				fmt.Fprintf(&b, "bearer_token_env_var = %s\n", tomlString(tokenEnv))
			}
		} else {
			quoted := make([]string, len(args))
			for i, s := range args {
				quoted[i] = tomlString(s)
			}
			fmt.Fprintf(&b, "command = %s\nargs = [%s]\n", tomlString(exe), strings.Join(quoted, ", "))
		}
		_, err := fmt.Fprint(a.stdout, b.String())
		return err
	}
	return commandLineError("--print-config: unknown host %q (want claude, codex or vscode)", client)
}

// tomlString quotes s as a TOML basic string (JSON string escaping is valid TOML).
func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
