package config

import (
	"maps"
	"net/url"
	"runtime"
	"slices"
	"sort"
	"strings"
)

// Server returns the server with the given name, or nil.
func (c *Config) Server(name string) *Server {
	for i := range c.Servers {
		if c.Servers[i].Name == name {
			return &c.Servers[i]
		}
	}
	return nil
}

// Enabled returns the servers that are not disabled, in config order.
func (c *Config) Enabled() []Server {
	var out []Server
	for _, s := range c.Servers {
		if !s.Disabled {
			out = append(out, s)
		}
	}
	return out
}

// Secrets returns, each once and in a stable order, the values a logger should redact:
// every non-empty env and header value of every server, its URL's password and query
// values, its "oauth" client secret, and the values of variables that fed env or header values or whose names
// say they are credentials (GITHUB_TOKEN, API_KEY, DB_PASSWORD) wherever they were
// used. Other variables are not secrets: ${HOME} in args stays readable.
func (c *Config) Secrets() []string {
	var out []string
	seen := map[string]bool{}
	add := func(vs ...string) {
		for _, v := range vs {
			if v != "" && !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	for _, s := range c.Servers {
		// Sorted keys: the result should not depend on map order.
		for _, m := range []map[string]string{s.Env, s.Headers} {
			for _, k := range sortedKeys(m) {
				add(m[k])
			}
		}
		add(urlSecrets(s.URL)...)
		if s.OAuth != nil {
			add(s.OAuth.ClientSecret)
		}
	}
	add(c.substituted...)
	return out
}

// BaseEnv is what a child with inheritEnv=false receives from the host's environment,
// before the entry's own env is added: on Windows, the variables without which
// programs there fail to start or to find their files (the list of the MCP SDKs' stdio
// clients, plus PATHEXT, ComSpec, TMP and windir, which cmd.exe and npx.cmd use).
var BaseEnv = baseEnv(runtime.GOOS)

func baseEnv(goos string) []string {
	if goos == "windows" {
		return []string{"APPDATA", "COMSPEC", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT",
			"PROCESSOR_ARCHITECTURE", "PROGRAMFILES", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP",
			"USERNAME", "USERPROFILE", "WINDIR"}
	}
	return []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "TMPDIR"}
}

// Environ returns the child process environment as "KEY=value" entries sorted by key:
// with InheritEnv, all of host plus s.Env; without, only the host variables named in
// BaseEnv plus s.Env. s.Env wins over host; among duplicate host entries the last wins,
// as in os/exec. On Windows names are case-insensitive: an env "PATH" replaces the
// host's "Path".
func (s *Server) Environ(host []string) []string {
	return environ(host, s.InheritEnv, s.Env, BaseEnv, runtime.GOOS == "windows")
}

func environ(host []string, inherit bool, own map[string]string, base []string, foldCase bool) []string {
	key := func(k string) string { return k }
	if foldCase {
		key = strings.ToUpper
	}
	env := map[string]string{} // key(name) → "name=value"
	for _, kv := range host {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if inherit || slices.Contains(base, key(k)) {
			env[key(k)] = kv
		}
	}
	for k, v := range own {
		env[key(k)] = k + "=" + v
	}
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, env[k])
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// urlSecrets returns a URL's password, then its query values by parameter name: tokens
// often travel there, and transport errors quote URLs in forms a plain replacement
// would miss.
func urlSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return nil
	}
	var out []string
	if pw, ok := u.User.Password(); ok {
		out = append(out, pw)
	}
	q := u.Query()
	for _, k := range slices.Sorted(maps.Keys(q)) {
		out = append(out, q[k]...)
	}
	return out
}
