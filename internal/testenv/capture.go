package testenv

import (
	"fmt"
	"io/fs"
	"log"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
)

// CaptureDefaultLog points the process's default loggers (slog.Default, and the log
// package, which slog.SetDefault takes over) at a Buffer until the test ends, at
// debug level: a test of a library that must stay quiet without a logger reads it.
// A test that calls it must not run in parallel with others.
func CaptureDefaultLog(tb testing.TB) *Buffer {
	tb.Helper()
	out := &Buffer{}
	prev, prevOut, prevFlags := slog.Default(), log.Writer(), log.Flags()
	slog.SetDefault(slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	tb.Cleanup(func() {
		// SetDefault with the original handler does not give the log package its
		// writer back.
		slog.SetDefault(prev)
		log.SetOutput(prevOut)
		log.SetFlags(prevFlags)
	})
	return out
}

// Tree lists every path under dir with its type, one a line: compare two listings to
// show that nothing on disk was created, moved or removed.
func Tree(tb testing.TB, dir string) string {
	tb.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v\n", p, d.Type())
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b.String()
}
