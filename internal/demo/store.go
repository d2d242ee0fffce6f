package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// storedNote is one note as kept in the notes file.
type storedNote struct {
	Title   string    `json:"title"`
	Text    string    `json:"text"`
	Tags    []string  `json:"tags,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// notebook is the decoded notes file. Top-level keys other than "notes" and
// "version" are kept as they were, so that a newer file format is not destroyed.
type notebook struct {
	notes map[string]*storedNote
	extra map[string]json.RawMessage
}

const notesFileVersion = 1

// noteStore is the notes file at path. Every operation reads the file afresh, so that
// several processes can share it; see update for how writers are serialised.
type noteStore struct {
	path string
}

// errCorrupt is wrapped by the errors for a notes file that cannot be decoded. Such a
// file is never overwritten.
var errCorrupt = errors.New("corrupt notes file")

// load reads the notebook; a missing (or empty) file is an empty notebook.
func (s *noteStore) load() (*notebook, error) {
	nb := &notebook{notes: map[string]*storedNote{}, extra: map[string]json.RawMessage{}}
	data, err := readFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nb, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading notes file %s: %w", s.path, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nb, nil
	}
	corrupt := func(err error) error {
		return fmt.Errorf("%w %s (fix or remove it; it was left untouched): %v", errCorrupt, s.path, err)
	}
	if err := json.Unmarshal(data, &nb.extra); err != nil {
		return nil, corrupt(err)
	}
	if nb.extra == nil { // the file held "null"
		return nil, corrupt(errors.New("not a JSON object"))
	}
	if raw, ok := nb.extra["version"]; ok {
		var v int
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, corrupt(fmt.Errorf("version: %v", err))
		}
		if v > notesFileVersion {
			return nil, fmt.Errorf("notes file %s has format version %d; this switchboard understands up to %d", s.path, v, notesFileVersion)
		}
	}
	var list []*storedNote
	if raw, ok := nb.extra["notes"]; ok {
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, corrupt(fmt.Errorf("notes: %v", err))
		}
	}
	delete(nb.extra, "notes")
	delete(nb.extra, "version")
	for i, n := range list {
		if n == nil || n.Title == "" {
			return nil, corrupt(fmt.Errorf("notes[%d]: missing title", i))
		}
		nb.notes[n.Title] = n
	}
	return nb, nil
}

// encode renders the notebook as the file's contents, notes sorted by title.
func (nb *notebook) encode() ([]byte, error) {
	list := sortedNotes(nb.notes)
	doc := make(map[string]any, len(nb.extra)+2)
	for k, v := range nb.extra {
		doc[k] = v
	}
	doc["version"] = notesFileVersion
	doc["notes"] = list
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// update runs fn on the current notebook while holding the exclusive lock on
// "<path>.lock", then writes the notebook back atomically if fn returns changed=true.
// A file that cannot be read or decoded is left as it is and fn is not called.
func (s *noteStore) update(ctx context.Context, fn func(*notebook) (changed bool, err error)) error {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the notes directory: %w", err)
	}
	unlock, err := lockFile(ctx, s.path+".lock")
	if err != nil {
		return fmt.Errorf("locking notes file %s: %w", s.path, err)
	}
	defer unlock()

	nb, err := s.load()
	if err != nil {
		return err
	}
	changed, err := fn(nb)
	if err != nil || !changed {
		return err
	}
	data, err := nb.encode()
	if err != nil {
		return fmt.Errorf("encoding notes: %w", err)
	}
	if err := writeFileAtomic(s.path, data); err != nil {
		return fmt.Errorf("writing notes file %s: %w", s.path, err)
	}
	return nil
}

// writeFileAtomic replaces path with data (mode 0600) through a temporary file in the
// same directory, so that readers see either the old or the new contents.
func writeFileAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o600); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return replaceFile(tmp, path)
}
