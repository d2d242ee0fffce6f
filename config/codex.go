package config

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex keeps its servers in TOML (~/.codex/config.toml), one [mcp_servers.NAME]
// table each, in fields of its own: they are read with a TOML library
// (BurntSushi/toml: TOML 1.0, the standard library alone, and the fields a
// decode left out are listed, so that what is not carried over can be said) and
// written as a Switchboard entry's.
//
//	[mcp_servers.docs]                     "docs": {
//	command = "npx"                          "command": "npx",
//	args = ["-y", "docs-mcp"]                "args": ["-y", "docs-mcp"],
//	env = { API_KEY = "k" }                  "env": {"API_KEY": "k", "HOME": "${HOME}"},
//	env_vars = ["HOME"]                      "timeout": "20s"}
//	startup_timeout_sec = 20
//
//	[mcp_servers.figma]                    "figma": {"type": "http",
//	url = "https://mcp.figma.com/mcp"        "url": "https://mcp.figma.com/mcp",
//	bearer_token_env_var = "FIGMA_TOKEN"     "headers": {"Authorization": "Bearer ${FIGMA_TOKEN}"}}

// codexServer is a [mcp_servers.NAME] table of Codex's config.
type codexServer struct {
	Command           string            `toml:"command"`
	Args              []string          `toml:"args"`
	Env               map[string]string `toml:"env"`
	EnvVars           []any             `toml:"env_vars"` // names of variables passed on
	Cwd               string            `toml:"cwd"`
	URL               string            `toml:"url"`
	BearerTokenEnvVar string            `toml:"bearer_token_env_var"`
	HTTPHeaders       map[string]string `toml:"http_headers"`
	EnvHTTPHeaders    map[string]string `toml:"env_http_headers"` // header → variable
	Enabled           *bool             `toml:"enabled"`
	StartupTimeoutSec *float64          `toml:"startup_timeout_sec"`
	StartupTimeoutMs  *int64            `toml:"startup_timeout_ms"`
	ToolTimeoutSec    *float64          `toml:"tool_timeout_sec"`
	EnabledTools      []string          `toml:"enabled_tools"`
	DisabledTools     []string          `toml:"disabled_tools"`
}

// readCodexFile reads the servers of a Codex config.toml, in file order.
func readCodexFile(path string) ([]HostServer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Servers map[string]codexServer `toml:"mcp_servers"`
	}
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		return nil, fmt.Errorf("does not parse as Codex's TOML: %v", err)
	}
	var names []string
	for _, k := range md.Keys() {
		if len(k) == 2 && k[0] == "mcp_servers" && !slices.Contains(names, k[1]) {
			names = append(names, k[1])
		}
	}
	left := map[string][]string{}
	for _, k := range md.Undecoded() {
		if len(k) >= 3 && k[0] == "mcp_servers" && !slices.Contains(left[k[1]], k[2]) {
			left[k[1]] = append(left[k[1]], k[2])
		}
	}
	var out []HostServer
	for _, name := range names {
		cs, ok := doc.Servers[name]
		if !ok {
			continue
		}
		entry, notes := cs.entry()
		for _, f := range left[name] {
			notes = append(notes, fmt.Sprintf("%q not imported (no Switchboard field for it)", f))
		}
		s := hostServer(name, entry, path)
		s.Notes = append(notes, s.Notes...)
		out = append(out, s)
	}
	return out, nil
}

// entry is c as a Switchboard entry, and what of it was not carried over.
func (c codexServer) entry() (json.RawMessage, []string) {
	var notes []string
	e := fileEntry{Command: c.Command, Args: c.Args, Cwd: c.Cwd, URL: c.URL,
		Disabled: c.Enabled != nil && !*c.Enabled}
	if c.URL != "" {
		e.Type = "http" // Codex speaks Streamable HTTP to a url
	}
	if len(c.Env) > 0 || len(c.EnvVars) > 0 {
		e.Env = map[string]string{}
	}
	for k, v := range c.Env {
		e.Env[k] = v
	}
	for _, v := range c.EnvVars {
		name, ok := v.(string)
		if !ok || !varNameRE.MatchString(name) {
			notes = append(notes, fmt.Sprintf("env_vars: %v not imported (a variable's name was expected)", v))
			continue
		}
		if _, set := e.Env[name]; !set {
			e.Env[name] = "${" + name + "}"
		}
	}
	if len(c.HTTPHeaders) > 0 || len(c.EnvHTTPHeaders) > 0 || c.BearerTokenEnvVar != "" {
		e.Headers = map[string]string{}
	}
	for k, v := range c.HTTPHeaders {
		e.Headers[k] = v
	}
	for k, v := range c.EnvHTTPHeaders {
		e.Headers[k] = "${" + v + "}"
	}
	if c.BearerTokenEnvVar != "" {
		e.Headers["Authorization"] = "Bearer ${" + c.BearerTokenEnvVar + "}"
	}
	switch {
	case c.StartupTimeoutSec != nil:
		e.Timeout = secondsText(*c.StartupTimeoutSec)
	case c.StartupTimeoutMs != nil:
		e.Timeout = strconv.FormatInt(*c.StartupTimeoutMs, 10) + "ms"
	}
	if c.ToolTimeoutSec != nil {
		e.ToolTimeout = secondsText(*c.ToolTimeoutSec)
	}
	if len(c.EnabledTools) > 0 || len(c.DisabledTools) > 0 {
		e.Tools = &fileTools{Allow: c.EnabledTools, Deny: c.DisabledTools}
	}
	data, _ := json.Marshal(e) // strings, slices and maps of strings: never fails
	return data, notes
}

// secondsText is a number of seconds as a duration of the config ("1.5s").
func secondsText(s float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(s, 'f', -1, 64), ".0") + "s"
}
