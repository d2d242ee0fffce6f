package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/host"
)

// With --server URL (or $SWITCHBOARD_SERVER) the commands that read the catalog or the
// sessions — tools, call, status, search, sessions, chat — ask a running `switchboard
// serve` over its HTTP API (docs/api.md) instead of starting the servers themselves.
// What they print and their exit codes stay those of the local commands.

// serverEnv names the environment variable that points the CLI at a running service.
const serverEnv = "SWITCHBOARD_SERVER"

// remoteKey is the annotation of a command that can ask a running service.
const remoteKey = "switchboard/remote"

// quietAboutServerEnv are the commands that ignore $SWITCHBOARD_SERVER without a
// word: serve is the service itself (a shell that points its CLI at it starts it
// too), and the others touch no server.
var quietAboutServerEnv = map[string]bool{"serve": true, "version": true, "demo-server": true, "fake-llm": true, "health": true, "fake-idp": true}

// cobraOwn are cobra's own commands, which take every persistent flag as it comes.
var cobraOwn = map[string]bool{"help": true, "completion": true, cobra.ShellCompRequestCmd: true, cobra.ShellCompNoDescRequestCmd: true}

// serviceURL is where cmd should ask, or "" to run locally: --server, else
// $SWITCHBOARD_SERVER; from names which of the two. --server on a command that cannot
// ask a service is a usage error; $SWITCHBOARD_SERVER there is ignored, with a warning
// when the command starts servers of its own.
func (a *app) serviceURL(cmd *cobra.Command) (addr, from string, err error) {
	if cobraOwn[cmd.Name()] {
		return "", "", nil // help and completion: whatever the other flags
	}
	flag := cmd.Flags().Lookup("server")
	given := flag != nil && flag.Changed
	if cmd.Annotations[remoteKey] == "" {
		if given {
			return "", "", commandLineError("%s does not take --server: only tools, call, status, search, sessions and chat ask a running service", cmd.CommandPath())
		}
		if os.Getenv(serverEnv) != "" && !quietAboutServerEnv[cmd.Name()] {
			a.log.Warn(fmt.Sprintf("$%s is ignored: %s runs here, on the local config (only tools, call, status, search, sessions and chat ask a running service)", serverEnv, cmd.CommandPath()))
		}
		return "", "", nil
	}
	if given {
		if strings.TrimSpace(a.server) == "" {
			return "", "", commandLineError("--server: the URL is empty (e.g. --server http://127.0.0.1:7300)")
		}
		return a.server, "--server", nil
	}
	return os.Getenv(serverEnv), "$" + serverEnv, nil
}

// localOnly refuses the flags of cmd that only mean something when it runs here (a
// data directory, a model, a store): the service has its own. from names where the
// service's URL came from.
func localOnly(cmd *cobra.Command, from string) error {
	var given []string
	visit := func(f *pflag.Flag) {
		if f.Changed && f.Annotations[localOnlyKey] != nil {
			given = append(given, "--"+f.Name)
		}
	}
	cmd.Flags().Visit(visit)
	if len(given) == 0 {
		return nil
	}
	return commandLineError("%s with a running service (%s): %s would be the service's to set, not the command's; leave %s out (or set %s on 'switchboard serve')%s",
		cmd.CommandPath(), from, strings.Join(given, ", "), map[bool]string{true: "them", false: "it"}[len(given) > 1],
		map[bool]string{true: "them", false: "it"}[len(given) > 1], runHere(from))
}

// runHere is how to run a command here rather than at the service of from.
func runHere(from string) string {
	if from == "--server" {
		return ", or run it without --server"
	}
	return ", or unset $" + serverEnv + " to run it here"
}

// localOnlyKey annotates the flags that localOnly refuses.
const localOnlyKey = "switchboard/local-only"

// markLocalOnly marks every flag of cmd but keep as one that a remote run refuses.
func markLocalOnly(cmd *cobra.Command, keep ...string) {
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		for _, k := range keep {
			if f.Name == k {
				return
			}
		}
		if f.Annotations == nil {
			f.Annotations = map[string][]string{}
		}
		f.Annotations[localOnlyKey] = []string{"yes"}
	})
}

// remote is a client of a running service's HTTP API.
type remote struct {
	base  string // the service's root URL, without a trailing slash
	token string // "" for none
	// tokenFile is the file the token was read from; "" when it came from
	// $SWITCHBOARD_TOKEN or there is none.
	tokenFile string
	// tokenLook is the file a token was looked for in and not found: a service on
	// loopback, no $SWITCHBOARD_TOKEN.
	tokenLook string
	http      *http.Client
}

// newRemote checks raw (a URL, or a host:port taken as http) and reads the token
// from $SWITCHBOARD_TOKEN, else, for a service on loopback, the token that a serve
// of this account made for itself in dataDir ("": the default data directory,
// serve's too). The token is registered as a secret. A service elsewhere never gets
// the local token.
func (a *app) newRemote(raw, dataDir string) (*remote, error) {
	s := strings.TrimSpace(raw)
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, usageError("--server %q is not the URL of a switchboard service: want e.g. http://127.0.0.1:7300 (what 'switchboard serve' says it serves)", raw)
	}
	// The service's root: the base URL of the OpenAI clients (…/v1) is taken too.
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
	token, err := bearerToken("", a.red)
	if err != nil {
		return nil, err
	}
	file, look := "", ""
	if token == "" && host.IsLoopbackHost(u.Host) {
		if token, err = host.ReadServeToken(dataDir); err != nil {
			return nil, usageError("--server %s: %v", raw, err)
		}
		path, _ := host.ServeTokenPath(dataDir)
		if token != "" {
			a.red.Add(token)
			file = path
		} else {
			look = path
		}
	}
	// No overall timeout: a call or a turn takes as long as it takes, and Ctrl-C ends it.
	transport := http.DefaultTransport.(*http.Transport).Clone()
	return &remote{base: strings.TrimSuffix(u.String(), "/"), token: token, tokenFile: file, tokenLook: look, http: &http.Client{Transport: transport}}, nil
}

// close lets go of the connections kept for the next request.
func (r *remote) close() { r.http.CloseIdleConnections() }

// apiError is the API's error, {"error": {"code", "message"}}, with the response's
// status: the service's own type (apiwire), so that a command decides on its Code,
// one of apiwire's constants, and never on the words of its Message.
type apiError = apiwire.Error

// do sends one request (body encoded as JSON unless nil) and returns the response,
// whose status is 2xx; any other status is an *apiError, and a service that cannot
// be reached an error naming it, each with the exit code of a failure (usage errors
// are for the caller to decide on the *apiError).
func (r *remote) do(ctx context.Context, method, path string, body any, accept string) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.base+path, rd)
	if err != nil {
		return nil, usageError("--server %s: %v", r.base, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	res, err := r.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, &exitError{code: exitFailed, err: fmt.Errorf("cannot reach the switchboard service at %s (--server or $%s): %v; is 'switchboard serve' running there?", r.base, serverEnv, err)}
	}
	if res.StatusCode/100 == 2 {
		return res, nil
	}
	defer res.Body.Close()
	return nil, r.errorOf(res)
}

// errorOf reads a response's error: the API's own, or (from something else at that
// address) its status and the start of its body.
func (r *remote) errorOf(res *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	var body apiwire.ErrorBody
	e := &apiError{Status: res.StatusCode}
	if json.Unmarshal(b, &body) == nil && body.Error.Message != "" {
		e.Code, e.Message, e.Suggestions = body.Error.Code, body.Error.Message, body.Error.Suggestions
	} else {
		e.Code = "http"
		e.Message = fmt.Sprintf("the service at %s answered %s", r.base, res.Status)
		if text := firstLine(string(b), 200); text != "" {
			e.Message += ": " + text
		}
	}
	if res.StatusCode == http.StatusUnauthorized {
		return &exitError{code: exitFailed, err: r.unauthorized(res, e.Message)}
	}
	return e
}

// unauthorized says what to do about a 401 whose API message is msg. A service
// that takes an identity provider's tokens says so (RFC 9728: its WWW-Authenticate
// names its protected resource metadata, whose authorization_servers name the
// provider): a person gets a token of that provider, not the one the service was
// started with. Else the token is the one it was started with or, on this machine,
// the one it made in its data directory, which the CLI reads itself.
func (r *remote) unauthorized(res *http.Response, msg string) error {
	issuers := r.identityProviders(res)
	switch {
	case len(issuers) > 0 && r.token == "":
		return fmt.Errorf("the switchboard service at %s signs people in with %s: set $%s to an access token that it issued you for this service (%s)", r.base, strings.Join(issuers, ", "), tokenEnv, msg)
	case len(issuers) > 0 && r.tokenFile != "":
		return fmt.Errorf("the switchboard service at %s refused the token of %s (another serve's?): it signs people in with %s; set $%s to an access token that it issued you for this service (%s)", r.base, r.tokenFile, strings.Join(issuers, ", "), tokenEnv, msg)
	case len(issuers) > 0:
		return fmt.Errorf("the switchboard service at %s refused the token in $%s: %s (it takes the access tokens of %s issued for it)", r.base, tokenEnv, msg, strings.Join(issuers, ", "))
	case r.token == "" && r.tokenLook != "":
		return fmt.Errorf("the switchboard service at %s wants a token: set $%s to the token it was started with (--token or $%s), or, when it made its own, give --data-dir its data directory (the token was looked for in %s) (%s)", r.base, tokenEnv, tokenEnv, r.tokenLook, msg)
	case r.token == "":
		return fmt.Errorf("the switchboard service at %s wants a token: set $%s to the token it was started with, or to the one it made (in its data directory's %s) (%s)", r.base, tokenEnv, host.ServeTokenFile, msg)
	case r.tokenFile != "":
		return fmt.Errorf("the switchboard service at %s refused the token of %s (another serve's?): set $%s to its token, or give --data-dir its data directory (%s)", r.base, r.tokenFile, tokenEnv, msg)
	}
	return fmt.Errorf("the switchboard service at %s refused the token in $%s: %s", r.base, tokenEnv, msg)
}

// identityProviders are the authorization servers of the service's protected
// resource metadata when its 401 points at one; nil when it does not or the
// metadata cannot be read. The metadata is asked of the service itself, whatever
// address the challenge names.
func (r *remote) identityProviders(res *http.Response) []string {
	if !strings.Contains(res.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		return nil
	}
	ctx, cancel := context.WithTimeout(res.Request.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.base+"/.well-known/oauth-protected-resource", nil)
	if err != nil {
		return nil
	}
	meta, err := r.http.Do(req)
	if err != nil {
		return nil
	}
	defer meta.Body.Close()
	var doc struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if meta.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(meta.Body, 64<<10)).Decode(&doc) != nil {
		return nil
	}
	return doc.AuthorizationServers
}

// getJSON GETs path and decodes the answer into v.
func (r *remote) getJSON(ctx context.Context, path string, v any) error {
	b, err := r.getBytes(ctx, path)
	if err != nil {
		return err
	}
	return r.decode(path, b, v)
}

// getBytes GETs path and returns the answer's body as it came.
func (r *remote) getBytes(ctx context.Context, path string) ([]byte, error) {
	res, err := r.do(ctx, http.MethodGet, path, nil, "")
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, r.lost(ctx, err)
	}
	return b, nil
}

// send sends a request with body (nil: none) and decodes the answer into v (nil:
// drops it).
func (r *remote) send(ctx context.Context, method, path string, body, v any) error {
	res, err := r.do(ctx, method, path, body, "")
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return r.lost(ctx, err)
	}
	if v == nil {
		return nil
	}
	return r.decode(path, b, v)
}

func (r *remote) decode(path string, b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return &exitError{code: exitFailed, err: fmt.Errorf("the service at %s answered %s with what is not its API's JSON (%v): is it a switchboard service?", r.base, path, err)}
	}
	return nil
}

// lost is the error of a connection cut in the middle of an answer.
func (r *remote) lost(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &exitError{code: exitFailed, err: fmt.Errorf("the connection to the switchboard service at %s broke: %v", r.base, err)}
}

// failed is err with the exit code of a failure when it is the API's: the operation
// ran there and failed (an error of the connection has its code already).
func failed(err error) error {
	var ae *apiError
	if errors.As(err, &ae) {
		return &exitError{code: exitFailed, err: err}
	}
	return err
}

// setupRemote points cmd at the service of --server or $SWITCHBOARD_SERVER when it
// can ask one, after refusing what only a local run takes (--config, a model, a
// store, a data directory).
func (a *app) setupRemote(cmd *cobra.Command) error {
	srv, from, err := a.serviceURL(cmd)
	if err != nil || srv == "" {
		return err
	}
	if cmd.Flags().Changed("config") {
		return commandLineError("%s: --config and a running service (%s) do not go together: the service reads its own config%s", cmd.CommandPath(), from, runHere(from))
	}
	if err := localOnly(cmd, from); err != nil {
		return err
	}
	dataDir := ""
	if f := cmd.Flags().Lookup("data-dir"); f != nil {
		dataDir = f.Value.String()
	}
	a.remote, err = a.newRemote(srv, dataDir)
	return err
}
