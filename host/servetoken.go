package host

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/switchboard-mcp/switchboard/session/sqlite"
)

// ServeTokenFile is the file of the data directory that keeps the bearer token a
// service made for itself (ServeToken).
const ServeTokenFile = "serve-token"

// DataDir is dir, or when dir is "" the default data directory: switchboard's
// directory under the user's state directory, where the SQLite sessions, the
// sign-ins and a service's own token are kept.
func DataDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	return sqlite.DefaultDir()
}

// ServeTokenPath is where ServeToken keeps the token of dataDir ("": the default
// data directory).
func ServeTokenPath(dataDir string) (string, error) {
	dir, err := DataDir(dataDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, ServeTokenFile), nil
}

// ServeToken is the bearer token of a service that was given neither a token nor
// an identity provider, as Jupyter makes one: read from dataDir's ServeTokenFile
// ("": the default data directory), else made from crypto/rand and kept there,
// readable by its owner only (0600, in a 0700 directory when it makes the
// directory), so that it lasts across restarts and a client of the same account
// finds it (ReadServeToken) while other accounts of the machine cannot. Two
// services that start at once get the same token. A file that other accounts may
// read is refused: what it holds may be theirs already.
func ServeToken(dataDir string) (string, error) {
	path, err := ServeTokenPath(dataDir)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tok, err := readServeToken(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return tok, err
	}
	// Written whole under a name of its own, then linked into place: a service
	// starting at the same moment wins the link or reads the winner's token, never
	// half of one.
	tmp, err := os.CreateTemp(dir, "."+ServeTokenFile+"-*") // 0600
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	tok = rand.Text()
	_, err = tmp.WriteString(tok + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("serve's token %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return readServeToken(path)
	} else if err != nil {
		return "", fmt.Errorf("serve's token %s: %w", path, err)
	}
	return tok, nil
}

// ReadServeToken is the token that ServeToken keeps in dataDir ("": the default
// data directory): what a client of a service on this machine sends when it was
// given no token. ("", nil) when there is none.
func ReadServeToken(dataDir string) (string, error) {
	path, err := ServeTokenPath(dataDir)
	if err != nil {
		return "", err
	}
	tok, err := readServeToken(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return tok, err
}

// readServeToken reads path, an error wrapping fs.ErrNotExist when there is no
// such file.
func readServeToken(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	// Windows has no mode bits to read: its ACLs inherit the user's profile's.
	if perm := fi.Mode().Perm(); runtime.GOOS != "windows" && perm&0o077 != 0 {
		return "", fmt.Errorf("serve's token %s may be read by other accounts (mode %04o): remove it to have a new one made, as anyone who read it could use the service", path, perm)
	}
	b, err := io.ReadAll(io.LimitReader(f, 256))
	if err != nil {
		return "", fmt.Errorf("serve's token %s: %w", path, err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" || strings.ContainsFunc(tok, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
		return "", fmt.Errorf("serve's token %s holds no token (printable ASCII with no spaces): remove it to have a new one made", path)
	}
	return tok, nil
}
