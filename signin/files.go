package signin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DirName is the directory under a data directory (--data-dir) that holds the sign-in
// files.
const DirName = "signin"

// Files is a Store of one file per record in a directory that only its owner may
// read: the directory is 0700 and each file 0600 (on Windows, the user's profile
// directory keeps others out), and a file is written whole to a temporary file and
// renamed over the old one, so that a reader never sees half of it and a crash
// leaves the old one. The directory is made on the first Save: reading a store that
// was never written to is reading an empty one.
type Files struct {
	dir string
}

var _ Store = (*Files)(nil)

// NewFiles returns the store in dir (made on the first Save). The usual dir is
// DirName under the data directory.
func NewFiles(dir string) *Files { return &Files{dir: dir} }

// Dir is the store's directory.
func (f *Files) Dir() string { return f.dir }

// name is a record's file name: its prefix, then a hash of the issuer, so that
// Load finds a server's records by a glob and no URL appears in a file name.
func name(server, subject, issuer string) string {
	return prefix(server, subject) + "-" + hash(issuer) + ".json"
}

// prefix is the start of the file names of the records of (server, subject): a hash
// of the server's URL, then, for a person's own sign-in, "~" and a hash of their
// subject (never the subject itself). The service's own records keep the names they
// had before persons had their own, and a glob for them matches no person's.
func prefix(server, subject string) string {
	if subject == "" {
		return hash(server)
	}
	return hash(server) + "~" + hash(subject)
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
}

// Load implements Store.
func (f *Files) Load(ctx context.Context, server, subject string) ([]*Record, error) {
	paths, err := filepath.Glob(filepath.Join(f.dir, prefix(server, subject)+"-*.json"))
	if err != nil {
		return nil, err
	}
	recs := []*Record{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // forgotten since the glob
		}
		if err != nil {
			return nil, fmt.Errorf("sign-in store: %w", err)
		}
		var rec Record
		if err := json.Unmarshal(data, &rec); err != nil {
			return nil, fmt.Errorf("sign-in store: %s: %v (delete the file, or run 'switchboard logout' for the server)", p, err)
		}
		if rec.Server != server || rec.Subject != subject {
			continue // a hash collision, as unlikely as it is
		}
		recs = append(recs, &rec)
	}
	sortRecords(recs)
	return recs, ctx.Err()
}

// Save implements Store.
func (f *Files) Save(ctx context.Context, rec *Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := f.mkdir(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(f.dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("sign-in store: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	// CreateTemp makes the file 0600 already; said again, in case a umask or a
	// platform thinks otherwise.
	if err := tmp.Chmod(0o600); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		tmp.Close()
		return fmt.Errorf("sign-in store: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("sign-in store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sign-in store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("sign-in store: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(f.dir, name(rec.Server, rec.Subject, rec.Issuer))); err != nil {
		return fmt.Errorf("sign-in store: %w", err)
	}
	return nil
}

// Delete implements Store.
func (f *Files) Delete(ctx context.Context, server, subject string) error {
	paths, err := filepath.Glob(filepath.Join(f.dir, prefix(server, subject)+"-*.json"))
	if err != nil {
		return err
	}
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("sign-in store: %w", err)
		}
	}
	return ctx.Err()
}

// mkdir makes the directory 0700, and makes an existing one 0700 too: it holds
// tokens, and nobody else's business is in it.
func (f *Files) mkdir() error {
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return fmt.Errorf("sign-in store: %w", err)
	}
	if err := os.Chmod(f.dir, 0o700); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("sign-in store: %w", err)
	}
	return nil
}

// String names the store for messages.
func (f *Files) String() string { return strings.TrimSuffix(f.dir, string(filepath.Separator)) }
