package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/deferred"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/llm/anthropic"
	"github.com/switchboard-mcp/switchboard/llm/openai"
	"github.com/switchboard-mcp/switchboard/search"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/session/postgres"
	"github.com/switchboard-mcp/switchboard/session/sqlite"
	"github.com/switchboard-mcp/switchboard/tool"
)

// ErrNoModel is what Model's *SettingsError wraps when no model is configured.
// With Options.ModelHow, the error says that way too.
var ErrNoModel = errors.New(`no model configured: set "switchboard": {"model": {"provider": "openai", "name": "…"}} in the config`)

// ModelSettings are the model's settings: Options.Model, else the config's, with
// the provider (openai) and the key's variable (OPENAI_API_KEY or
// ANTHROPIC_API_KEY) filled in.
func (h *Host) ModelSettings() config.ModelSettings {
	ms := h.cfg.Settings.Model
	if h.opts.Model != nil {
		ms = *h.opts.Model
	}
	if ms.Provider == "" {
		ms.Provider = "openai"
	}
	if ms.APIKeyEnv == "" {
		ms.APIKeyEnv = config.DefaultAPIKeyEnv(ms.Provider)
	}
	return ms
}

// AgentSettings are the agent loop's settings: Options.Agent, else the config's,
// with the deferred mode filled in (the agent's own, else the config's top-level
// "deferred").
func (h *Host) AgentSettings() config.AgentSettings {
	as := h.cfg.Settings.Agent
	if h.opts.Agent != nil {
		as = *h.opts.Agent
	}
	if as.Deferred == nil {
		d := h.cfg.Settings.Deferred
		as.Deferred = &d
	}
	return as
}

// SessionSettings are the session store's settings: Options.Sessions, else the
// config's.
func (h *Host) SessionSettings() config.SessionSettings {
	if h.opts.Sessions != nil {
		return *h.opts.Sessions
	}
	return h.cfg.Settings.Sessions
}

type modelOnce struct {
	once  sync.Once
	model llm.Model
	err   error
}

// Model is the configured model's backend, made on the first call (it contacts
// nothing). The API key is read from the variable the settings name, never from
// the config, and registered with the Redactor. No model configured, or no key for
// the provider's own API, is a *SettingsError.
func (h *Host) Model() (llm.Model, error) {
	h.model.once.Do(func() { h.model.model, h.model.err = h.newModel() })
	return h.model.model, h.model.err
}

// HasModel reports whether Model has made a model that works.
func (h *Host) HasModel() bool {
	m, err := h.Model()
	return m != nil && err == nil
}

func (h *Host) newModel() (llm.Model, error) {
	ms := h.ModelSettings()
	if ms.Name == "" {
		if h.opts.ModelHow != "" {
			return nil, &SettingsError{Err: fmt.Errorf("%w, or %s", ErrNoModel, h.opts.ModelHow)}
		}
		return nil, &SettingsError{Err: ErrNoModel}
	}
	key := os.Getenv(ms.APIKeyEnv)
	if key != "" {
		h.red.Add(key)
	} else if ms.BaseURL == "" {
		return nil, settingsErrorf(`$%s is not set: the %s API needs a key (a local OpenAI-compatible server needs none: give the model's "baseUrl")`, ms.APIKeyEnv, ms.Provider)
	}
	var (
		m   llm.Model
		err error
	)
	switch ms.Provider {
	case "anthropic":
		m, err = anthropic.New(ms.Name, &anthropic.Options{BaseURL: ms.BaseURL, APIKey: key, MaxTokens: ms.MaxTokens, Logger: h.log,
			ToolSearch: ms.ToolSearch})
	default:
		m, err = openai.New(ms.Name, &openai.Options{BaseURL: ms.BaseURL, APIKey: key, MaxTokens: ms.MaxTokens, Logger: h.log, API: ms.API,
			MaxTokensParam: ms.MaxTokensParam})
	}
	if err != nil {
		return nil, settingsErrorf("model: %v", err)
	}
	return m, nil
}

// Embeddings is the embeddings ranking that "switchboard.search.embeddings"
// describes, or nil (words alone) when there is none or its key is missing:
// embeddings are never required. The key is registered with the Redactor.
func (h *Host) Embeddings() (*search.Embeddings, error) {
	es := h.cfg.Settings.Search.Embeddings
	if es == nil {
		return nil, nil
	}
	env := es.APIKeyEnv
	if env == "" {
		env = config.DefaultAPIKeyEnv("openai")
	}
	key := os.Getenv(env)
	if key != "" {
		h.red.Add(key)
	} else if es.BaseURL == "" {
		h.log.Warn("switchboard.search.embeddings: $" + env + " is not set and OpenAI's API needs a key; tool search ranks by words alone")
		return nil, nil
	}
	embedder, err := openai.NewEmbedder(es.Model, &openai.EmbedderOptions{BaseURL: es.BaseURL, APIKey: key})
	if err != nil {
		return nil, settingsErrorf("switchboard.search.embeddings: %v", err)
	}
	e, err := search.NewEmbeddings(embedder, &search.EmbeddingsOptions{Weight: es.Weight, Logger: h.log})
	if err != nil {
		return nil, settingsErrorf("switchboard.search.embeddings: %v", err)
	}
	return e, nil
}

// DeferredPolicy is deferred mode's policy for the settings d: the mode, its
// threshold or share of the model's context window, the tools pinned by d's globs
// (exposed names) and by each server's "pinned" (original names), and the
// embeddings of "switchboard.search" when configured.
func (h *Host) DeferredPolicy(d config.DeferredSettings) (*deferred.Policy, error) {
	cfg := h.cfg
	p := &deferred.Policy{Threshold: d.Threshold, Share: d.Share, ContextWindow: h.ModelSettings().ContextWindow}
	switch d.Mode {
	case config.DeferredAlways:
		p.Mode = deferred.Always
	case config.DeferredNever:
		p.Mode = deferred.Never
	}
	pinned := len(d.Pinned) > 0
	for _, s := range cfg.Servers {
		pinned = pinned || len(s.Pinned) > 0
	}
	if pinned {
		p.Pinned = func(t tool.Tool) bool { return cfg.Pinned(d, t.Server, t.OriginalName, t.Name) }
	}
	emb, err := h.Embeddings()
	if err != nil {
		return nil, err
	}
	p.Embeddings = emb
	return p, nil
}

// StorePathError is a SQLite session store whose directory cannot be made or whose
// file cannot be written: Path is the file, Err the OS's error.
type StorePathError struct {
	Path string
	Err  error
}

func (e *StorePathError) Error() string {
	return "session store " + e.Path + ": " + e.Err.Error() + ": give a directory that can be created and written to"
}
func (e *StorePathError) Unwrap() error { return e.Err }

// Sessions opens the session store the settings name (SQLite by default, at the
// settings' path or in the user's state directory; memory; PostgreSQL) on the first
// call, with a janitor that removes sessions idle past the settings' timeout. The
// Host owns both: Close closes them. A path that cannot be written is a
// *SettingsError wrapping a *StorePathError; a database out of reach is not a
// SettingsError.
func (h *Host) Sessions(ctx context.Context) (*session.Janitor, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, errors.New("host: closed")
	}
	if h.store != nil {
		return h.store, nil
	}
	ss := h.SessionSettings()
	st, err := h.openStore(ctx, ss)
	if err != nil {
		return nil, err
	}
	h.store = session.NewJanitor(st, &session.JanitorOptions{Timeout: ss.Timeout, Logger: h.log})
	return h.store, nil
}

// OpenStore opens the session store the settings name, as Sessions does, but
// without a janitor and for the caller to close: a program that only reads or edits
// the sessions (switchboard sessions) must not expire them meanwhile.
func (h *Host) OpenStore(ctx context.Context) (session.Store, error) {
	return h.openStore(ctx, h.SessionSettings())
}

func (h *Host) openStore(ctx context.Context, ss config.SessionSettings) (session.Store, error) {
	switch ss.Store {
	case "memory":
		return session.NewMemory(), nil
	case "postgres":
		if ss.DSN == "" {
			return nil, settingsErrorf(`the postgres session store needs a connection string: the config's "sessions": {"dsn": "${PG_DSN}"}`)
		}
		h.red.Add(ss.DSN)
		return postgres.Open(ctx, ss.DSN) // its errors name the store and its host
	}
	path := ss.Path
	if path == "" {
		var err error
		if path, err = sqlite.DefaultPath(); err != nil {
			return nil, settingsErrorf(`session store: %v (give the config's "sessions": {"path"})`, err)
		}
	}
	if err := storeFileWritable(path); err != nil {
		return nil, &SettingsError{Err: &StorePathError{Path: path, Err: err}}
	}
	st, err := sqlite.Open(path) // its errors name the store and its path
	if err != nil {
		return nil, err
	}
	h.log.Debug("sessions stored in " + path)
	return st, nil
}

// storeFileWritable makes the directory of the SQLite file at path and the file itself
// (empty: SQLite takes an empty file as a new database) unless they exist, and checks
// that the file opens for writing. The error is the OS's, which names the path: "mkdir
// x: not a directory", "open x/sessions.db: is a directory", "permission denied".
func storeFileWritable(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}
