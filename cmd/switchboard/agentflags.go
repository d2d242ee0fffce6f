package main

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host"
)

// agentFlags override, one by one, the config's model, agent and session settings
// ("switchboard": {"model", "agent", "sessions"}). chat has them all, sessions the
// store's, and serve will have them all.
type agentFlags struct {
	cmd *cobra.Command

	provider, name, baseURL, apiKeyEnv string
	maxTokens                          int
	temperature                        float64

	maxSteps, parallelTools int
	system, deferred        string

	store, dsn, dataDir string
	sessionTimeout      time.Duration
}

// addModel adds the model's and the agent loop's flags to cmd.
func (f *agentFlags) addModel(cmd *cobra.Command) {
	f.cmd = cmd
	fl := cmd.Flags()
	fl.StringVar(&f.provider, "provider", "", "model provider: openai (any OpenAI-compatible endpoint) or anthropic (default: the config's, else openai)")
	fl.StringVar(&f.name, "model", "", "model name (default: the config's switchboard.model.name)")
	fl.StringVar(&f.baseURL, "base-url", "", "the model API's base URL (default: the config's, else the provider's own)")
	fl.StringVar(&f.apiKeyEnv, "api-key-env", "", "the environment variable that holds the API key (default OPENAI_API_KEY or ANTHROPIC_API_KEY)")
	fl.IntVar(&f.maxTokens, "max-tokens", 0, "cap each reply at this many tokens")
	fl.Float64Var(&f.temperature, "temperature", 0, "sampling temperature, 0 to 2 (default: the provider's)")
	fl.IntVar(&f.maxSteps, "max-steps", 0, "model requests with tools per turn before the final answer (default 10)")
	fl.IntVar(&f.parallelTools, "parallel-tools", 0, "tool calls of one step that run at once (default 8)")
	fl.StringVar(&f.system, "system", "", "the system prompt of a new session")
	fl.StringVar(&f.deferred, "deferred", "", `when the model sees search tools instead of every tool: auto (from 15 tools), auto:N% (definitions over N% of the context window), always or never (default: the config's, else auto)`)
}

// addStore adds the session store's flags to cmd; expiry adds --session-expiry, for
// the commands that run the janitor.
func (f *agentFlags) addStore(cmd *cobra.Command, expiry bool) {
	f.cmd = cmd
	fl := cmd.Flags()
	fl.StringVar(&f.store, "store", "", "session store: sqlite (default), memory or postgres")
	fl.StringVar(&f.dataDir, "data-dir", "", "the data directory: the SQLite session store, the sign-ins of remote servers and serve's own token (with --server, where a serve of this machine keeps it; default the user's state directory)")
	fl.StringVar(&f.dsn, "dsn", "", "the PostgreSQL connection string of --store postgres (prefer the config's dsn with ${VAR}: a flag shows in the process list)")
	if !expiry {
		return
	}
	fl.DurationVar(&f.sessionTimeout, "session-expiry", 0, "remove sessions idle longer than this (default: the config's sessions.timeout, else 1h; 0 keeps them)")
}

func (f *agentFlags) changed(name string) bool {
	return f.cmd != nil && f.cmd.Flags().Changed(name)
}

// model is the config's model settings with the flags applied, checked.
func (f *agentFlags) model(cfg *host.Config) (host.ModelSettings, error) {
	ms := cfg.Settings.Model
	if f.provider != "" {
		p := strings.ToLower(f.provider)
		if p != "openai" && p != "anthropic" {
			return ms, commandLineError("--provider %s: want openai or anthropic", f.provider)
		}
		if p != ms.Provider {
			ms.APIKeyEnv = "" // the config's key variable was for the other provider
		}
		ms.Provider = p
	}
	if ms.Provider == "" {
		ms.Provider = "openai"
	}
	if f.name != "" {
		ms.Name = f.name
	}
	if f.baseURL != "" {
		ms.BaseURL = f.baseURL
	}
	if f.apiKeyEnv != "" {
		ms.APIKeyEnv = f.apiKeyEnv
	}
	if ms.APIKeyEnv == "" {
		ms.APIKeyEnv = host.DefaultAPIKeyEnv(ms.Provider)
	}
	if f.changed("max-tokens") {
		if f.maxTokens < 1 {
			return ms, commandLineError("--max-tokens %d: want 1 or more", f.maxTokens)
		}
		ms.MaxTokens = f.maxTokens
	}
	if f.changed("temperature") {
		if f.temperature < 0 || f.temperature > 2 {
			return ms, commandLineError("--temperature %g: want a number from 0 to 2", f.temperature)
		}
		t := f.temperature
		ms.Temperature = &t
	}
	return ms, nil
}

// apply sets opts' model, agent and session settings: the config's with the flags
// applied, checked. A missing model name is the host's to report (host.ErrNoModel),
// when the command needs a model. The DSN of --dsn is registered with red.
func (f *agentFlags) apply(cfg *host.Config, opts *host.Options, red *host.Redactor) error {
	ms, err := f.model(cfg)
	if err != nil {
		return err
	}
	as, err := f.agent(cfg)
	if err != nil {
		return err
	}
	ss, err := f.sessions(cfg, red)
	if err != nil {
		return err
	}
	opts.Model, opts.Agent, opts.Sessions = &ms, &as, &ss
	opts.DataDir = f.dataDir
	return nil
}

// agent is the config's agent settings with the flags applied, checked.
func (f *agentFlags) agent(cfg *host.Config) (host.AgentSettings, error) {
	as := cfg.Settings.Agent
	for _, c := range []struct {
		flag string
		v    int
		dst  *int
	}{{"max-steps", f.maxSteps, &as.MaxSteps}, {"parallel-tools", f.parallelTools, &as.ParallelTools}} {
		if f.changed(c.flag) {
			if c.v < 1 {
				return as, commandLineError("--%s %d: want 1 or more", c.flag, c.v)
			}
			*c.dst = c.v
		}
	}
	if f.changed("system") {
		as.System = f.system
	}
	// The agent's own deferred settings, else the host's; the flag sets the mode
	// and keeps the config's pins.
	d := cfg.Settings.Deferred
	if as.Deferred != nil {
		d = *as.Deferred
	}
	if f.changed("deferred") {
		m, err := host.ParseDeferredMode(f.deferred)
		if err != nil {
			return as, commandLineError("--deferred %s: %v", f.deferred, err)
		}
		d.Mode, d.Share = m.Mode, m.Share
		if d.Share > 0 {
			d.Threshold = 0
		}
	}
	as.Deferred = &d
	return as, nil
}

// sessions is the config's session settings with the flags applied, checked.
// The DSN of --dsn is registered with red: it may hold a password.
func (f *agentFlags) sessions(cfg *host.Config, red *host.Redactor) (host.SessionSettings, error) {
	ss := cfg.Settings.Sessions
	if f.store != "" {
		s := strings.ToLower(f.store)
		if s != "sqlite" && s != "memory" && s != "postgres" {
			return ss, commandLineError("--store %s: want sqlite, memory or postgres", f.store)
		}
		ss.Store = s
	}
	if f.dsn != "" {
		red.Add(f.dsn)
		ss.DSN = f.dsn
	}
	if ss.Store == "postgres" && ss.DSN == "" {
		return ss, usageError(`--store postgres needs a connection string: the config's "sessions": {"dsn": "${PG_DSN}"}, or --dsn`)
	}
	if f.dataDir != "" {
		ss.Path = filepath.Join(f.dataDir, "sessions.db")
	}
	if f.changed("session-expiry") {
		switch {
		case f.sessionTimeout < 0:
			return ss, commandLineError("--session-expiry %s: must be 0 (never) or more", f.sessionTimeout)
		case f.sessionTimeout == 0:
			ss.Timeout = -1 // never, as 0 in the config
		default:
			ss.Timeout = f.sessionTimeout
		}
	}
	return ss, nil
}
