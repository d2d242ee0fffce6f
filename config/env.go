package config

import (
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
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

// Secrets returns every non-empty env value and header value of every server, each
// once, so a logger can redact them.
func (c *Config) Secrets() []string {
	var out []string
	seen := map[string]bool{}
	add := func(m map[string]string) {
		// Sorted keys: the result should not depend on map order.
		for _, k := range sortedKeys(m) {
			if v := m[k]; v != "" && !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	for _, s := range c.Servers {
		add(s.Env)
		add(s.Headers)
		add(urlSecrets(s.URL))
	}
	for _, v := range c.substituted {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// Environ returns the child process environment as "KEY=value" entries sorted by key:
// with InheritEnv, all of host plus s.Env; without, only the host variables named in
// BaseEnv plus s.Env. s.Env wins over host; among duplicate host entries the last wins,
// as in os/exec.
func (s *Server) Environ(host []string) []string {
	env := map[string]string{}
	for _, kv := range host {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if s.InheritEnv || slices.Contains(BaseEnv, k) {
			env[k] = v
		}
	}
	for k, v := range s.Env {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for _, k := range sortedKeys(env) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// EffectiveInitTimeout is InitTimeout, or DefaultInitTimeout when unset.
func (s *Server) EffectiveInitTimeout() time.Duration {
	if s.InitTimeout <= 0 {
		return DefaultInitTimeout
	}
	return s.InitTimeout
}

// EffectiveToolTimeout is ToolTimeout, or DefaultToolTimeout when unset.
func (s *Server) EffectiveToolTimeout() time.Duration {
	if s.ToolTimeout <= 0 {
		return DefaultToolTimeout
	}
	return s.ToolTimeout
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// urlSecrets returns a URL's password and query values: tokens often travel there, and
// transport errors quote URLs in forms a plain replacement would miss.
func urlSecrets(raw string) map[string]string {
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return nil
	}
	out := map[string]string{}
	if pw, ok := u.User.Password(); ok {
		out["password"] = pw
	}
	for k, vs := range u.Query() {
		for i, v := range vs {
			out[k+"#"+strconv.Itoa(i)] = v
		}
	}
	return out
}
