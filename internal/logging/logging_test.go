package logging

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/redact"
)

type stringer struct{ s string }

func (s stringer) String() string { return s.s }

func TestHandlerMasksEverything(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			r := &redact.Redactor{}
			r.Add("env-secret-123")
			log, _, err := New(Options{Format: format, Level: "debug", Writer: &buf, Redactor: r})
			if err != nil {
				t.Fatal(err)
			}
			log = log.With("preset", "env-secret-123")
			log.Info("starting with env-secret-123",
				KeyServer, "github",
				"err", errors.New("auth failed: Bearer abcdefghijklmnopqrstu"),
				"authorization", "anything at all",
				"api_key", "xyz",
				"obj", stringer{"holds env-secret-123"},
				slog.Group("request", "header", "env-secret-123", "n", 3),
			)
			out := buf.String()
			for _, leak := range []string{"env-secret-123", "abcdefghijklmnopqrstu", "anything at all", "xyz"} {
				if strings.Contains(out, leak) {
					t.Errorf("log line leaks %q:\n%s", leak, out)
				}
			}
			for _, keep := range []string{"github", "auth failed", "Bearer", "starting with", "request"} {
				if !strings.Contains(out, keep) {
					t.Errorf("log line lost %q:\n%s", keep, out)
				}
			}
			if format == "json" {
				var m map[string]any
				if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
					t.Fatalf("json output does not parse: %v\n%s", err, out)
				}
				if m[KeyServer] != "github" {
					t.Errorf("server attribute = %v", m[KeyServer])
				}
			}
		})
	}
}

func TestNewOptions(t *testing.T) {
	if _, _, err := New(Options{Level: "loud"}); err == nil || !strings.Contains(err.Error(), `unknown log level "loud"`) {
		t.Errorf("bad level: err = %v", err)
	}
	if _, _, err := New(Options{Format: "xml"}); err == nil || !strings.Contains(err.Error(), `unknown log format "xml"`) {
		t.Errorf("bad format: err = %v", err)
	}
	var buf bytes.Buffer
	log, _, err := New(Options{Level: "warn", Writer: &buf})
	if err != nil {
		t.Fatal(err)
	}
	log.Info("hidden")
	log.Warn("shown")
	if strings.Contains(buf.String(), "hidden") || !strings.Contains(buf.String(), "shown") {
		t.Errorf("level filter not applied: %q", buf.String())
	}
}

func TestLogFileRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.log")
	log, closer, err := New(Options{File: path, MaxSizeMB: 1, MaxBackups: 2})
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 1000)
	for i := 0; i < 2500; i++ { // ~2.5 MB: at least two rotations at 1 MB
		log.Info(line)
	}
	if err := closer.Close(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 2 {
		t.Fatalf("want the log and at least one rotated backup, got %d files", len(entries))
	}
	if len(entries) > 3 {
		t.Fatalf("MaxBackups=2 should keep at most 3 files, got %d", len(entries))
	}
}

func TestLogFileUnwritable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes to a read-only file")
	}
	path := filepath.Join(t.TempDir(), "ro.log")
	if err := os.WriteFile(path, []byte("old\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	_, _, err := New(Options{File: path})
	if err == nil || !strings.Contains(err.Error(), "cannot open for writing: permission denied") {
		t.Fatalf("err = %v, want permission denied", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "old\n" {
		t.Errorf("the file changed: %q", data)
	}
}

// TestLogFileCreated: a new file in an existing directory is what --log-file asks for.
func TestLogFileCreated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.log")
	log, closer, err := New(Options{File: path})
	if err != nil {
		t.Fatal(err)
	}
	log.Info("hello")
	if err := closer.Close(); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(path); err != nil || !strings.Contains(string(data), "hello") {
		t.Fatalf("log file: %q, %v", data, err)
	}
}
