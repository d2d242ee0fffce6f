package main

import (
	"os"
	"strings"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/logging"
)

// configSource says where the config comes from: --config, then $SWITCHBOARD_CONFIG,
// then ./mcp.json; "" means the built-in demo.
func (a *app) configSource() string {
	if a.configPath != "" {
		return a.configPath
	}
	if p := os.Getenv("SWITCHBOARD_CONFIG"); p != "" {
		return p
	}
	if _, err := os.Stat("mcp.json"); err == nil {
		return "mcp.json"
	}
	return ""
}

// loadConfig loads the config for a command. Config problems are usage errors (exit 2).
// Warnings and skipped servers are logged; secret values are registered for redaction.
func (a *app) loadConfig() (*config.Config, error) {
	return a.loadConfigFor(true)
}

// loadConfigFor is loadConfig; logWarnings false leaves the warnings and skipped servers
// to a command that reports them itself (check).
func (a *app) loadConfigFor(logWarnings bool) (*config.Config, error) {
	path := a.configSource()
	var cfg *config.Config
	if path == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, &exitError{code: exitFailed, err: err}
		}
		cfg = demo.Config(exe)
		a.log.Debug("no config given: using the built-in demo servers", "source", cfg.Source)
	} else {
		var err error
		cfg, err = config.Load(path, nil)
		if err != nil {
			return nil, &exitError{code: exitUsage, err: err}
		}
		a.log.Debug("config loaded", "source", path, "servers", len(cfg.Servers))
	}
	if logWarnings {
		a.adopt(cfg)
	} else {
		logging.AddSecrets(cfg.Secrets()...)
	}
	return cfg, nil
}

// adopt registers a loaded config's secret values for redaction and logs its warnings
// and skipped servers.
func (a *app) adopt(cfg *config.Config) {
	logging.AddSecrets(cfg.Secrets()...)
	for _, w := range cfg.Warnings {
		a.log.Warn("config: " + w)
	}
	for _, name := range cfg.Skipped {
		a.log.Info("config: skipping server that names this gateway", logging.KeyServer, name)
	}
}

// target describes where a server runs or listens, with secrets masked.
func target(s *config.Server) string {
	if s.Transport != config.Stdio {
		return logging.RedactURL(s.URL)
	}
	parts := append([]string{s.Command}, s.Args...)
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t\"'") {
			parts[i] = `"` + strings.ReplaceAll(p, `"`, `\"`) + `"`
		}
	}
	return logging.Redact(strings.Join(parts, " "))
}
