package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/deferred"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/llm/anthropic"
	"github.com/switchboard-mcp/switchboard/llm/openai"
	"github.com/switchboard-mcp/switchboard/redact"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/session/postgres"
	"github.com/switchboard-mcp/switchboard/session/sqlite"
	"github.com/switchboard-mcp/switchboard/tool"
)

// newModel makes the backend of ms. The API key is read from the environment variable
// the settings name, never from a flag or the config, and registered as a secret so
// that no log line or error shows it.
func newModel(ms config.ModelSettings, log *slog.Logger, red *redact.Redactor) (llm.Model, error) {
	key := os.Getenv(ms.APIKeyEnv)
	if key != "" {
		red.Add(key)
	} else if ms.BaseURL == "" {
		return nil, usageError("$%s is not set: the %s API needs a key (for a local OpenAI-compatible server, give its --base-url)", ms.APIKeyEnv, ms.Provider)
	}
	var (
		m   llm.Model
		err error
	)
	switch ms.Provider {
	case "anthropic":
		m, err = anthropic.New(anthropic.Options{BaseURL: ms.BaseURL, APIKey: key, Model: ms.Name, MaxTokens: ms.MaxTokens, Logger: log,
			ToolSearch: ms.ToolSearch})
	default:
		m, err = openai.New(openai.Options{BaseURL: ms.BaseURL, APIKey: key, Model: ms.Name, MaxTokens: ms.MaxTokens, Logger: log, API: ms.API})
	}
	if err != nil {
		return nil, usageError("model: %v", err)
	}
	return m, nil
}

// openStore opens the session store the settings name: SQLite by default (the
// settings' path, else the user's state directory), memory, or PostgreSQL. dataDir is
// the --data-dir given, if any (ss.Path is in it), for the messages. A SQLite file
// whose directory cannot be made or that cannot be written is a usage error (exit 2),
// named by where its place came from: the flag, the config, or the default.
func (a *app) openStore(ctx context.Context, ss config.SessionSettings, dataDir string) (session.Store, error) {
	switch ss.Store {
	case "memory":
		return session.NewMemory(), nil
	case "postgres":
		st, err := postgres.Open(ctx, ss.DSN)
		if err != nil {
			// Its errors name the store and its host already.
			return nil, &exitError{code: exitFailed, err: err}
		}
		return st, nil
	}
	path := ss.Path
	if path == "" {
		var err error
		if path, err = sqlite.DefaultPath(); err != nil {
			return nil, usageError("session store: %v (give --data-dir)", err)
		}
	}
	if err := storeFileWritable(path); err != nil {
		switch {
		case dataDir != "":
			return nil, usageError("--data-dir %s: %v: give a directory that can be created and written to", dataDir, err)
		case ss.Path != "":
			return nil, usageError(`session store %s (the config's "sessions": {"path"}): %v: give a file in a directory that can be created and written to`, path, err)
		}
		return nil, usageError("session store %s: %v: give --data-dir a directory that can be created and written to", path, err)
	}
	// Its errors name the store and its path already.
	st, err := sqlite.Open(path)
	if err != nil {
		return nil, &exitError{code: exitFailed, err: err}
	}
	a.log.Debug("sessions stored in " + path)
	return st, nil
}

// deferredPolicy is search's policy for the deferred settings d: the mode, its
// threshold or share of the model's context window, the tools pinned by d's globs
// (exposed names) and by each server's "pinned" (original names), and the
// embeddings endpoint of "switchboard.search" when one is configured.
func (a *app) deferredPolicy(cfg *config.Config, d config.DeferredSettings, ms config.ModelSettings) (*deferred.Policy, error) {
	p := &deferred.Policy{Threshold: d.Threshold, Share: d.Share, ContextWindow: ms.ContextWindow}
	switch d.Mode {
	case config.DeferredAlways:
		p.Mode = deferred.Always
	case config.DeferredNever:
		p.Mode = deferred.Never
	}
	if len(d.Pinned) > 0 || slices.ContainsFunc(cfg.Servers, func(s config.Server) bool { return len(s.Pinned) > 0 }) {
		p.Pinned = func(t tool.Tool) bool { return cfg.Pinned(d, t.Server, t.OriginalName, t.Name) }
	}
	emb, err := newEmbeddings(cfg.Settings.Search.Embeddings, a.log, a.red)
	if err != nil {
		return nil, err
	}
	p.Embeddings = emb
	return p, nil
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
