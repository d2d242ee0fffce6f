package main

import (
	"os"

	"github.com/switchboard-mcp/switchboard/host"
)

// tokenEnv names the environment variable that carries the bearer token of serve and
// mcp: the place to prefer, since a flag's value shows in the process list (ps).
const tokenEnv = "SWITCHBOARD_TOKEN"

// tokenHelp is the help of serve's and mcp's --token flag, after what the token guards.
const tokenHelp = " (default $" + tokenEnv + ", the better place: a flag shows in the process list)"

// bearerToken is the token serve or mcp requires: flag (the --token value) when given,
// else $SWITCHBOARD_TOKEN, else "" for none. A token a client cannot send as it is —
// blank (--token ' ' would count as set, and let 0.0.0.0 be served), with a space in
// or around it, a control character or a non-ASCII letter — is a usage error; the
// message names the token's place and never shows it. The token is registered as a
// secret so that no log line shows it.
func bearerToken(flag string, red *host.Redactor) (string, error) {
	token, from := flag, "--token"
	if token == "" {
		token, from = os.Getenv(tokenEnv), "$"+tokenEnv
	}
	if token == "" {
		return "", nil
	}
	red.Add(token)
	for i := 0; i < len(token); i++ {
		// An Authorization header carries "Bearer TOKEN": RFC 6750's token is
		// printable ASCII, and the header's parsers split at spaces and trim them.
		if c := token[i]; c <= ' ' || c >= 0x7f {
			return "", usageError("%s: the bearer token must be printable ASCII with no spaces (e.g. $(openssl rand -hex 16)); this one has a space, a control character or a non-ASCII byte", from)
		}
	}
	return token, nil
}
