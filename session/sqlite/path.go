package sqlite

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// FileName is the session file's name in its directory.
const FileName = "sessions.db"

// DefaultPath is where the session file lives when no --data-dir says otherwise: the
// user's state directory, by each OS's conventions —
// $XDG_STATE_HOME/switchboard (default ~/.local/state/switchboard) on Linux and the
// BSDs, ~/Library/Application Support/switchboard on macOS, and
// %LocalAppData%\switchboard on Windows.
func DefaultPath() (string, error) {
	dir, err := DefaultDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, FileName), nil
}

// DefaultDir is DefaultPath's directory, the default of a --data-dir.
func DefaultDir() (string, error) {
	dir, err := stateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "switchboard"), nil
}

func stateDir() (string, error) {
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return d, nil
		}
		return "", errors.New("session store: %LocalAppData% is not set")
	case "darwin", "ios":
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "Library", "Application Support"), nil
	}
	// XDG Base Directory: a relative $XDG_STATE_HOME is invalid and ignored.
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "state"), nil
}
