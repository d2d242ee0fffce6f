package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host/admin"
)

// A config file edited where no Host runs it (the command line's add, remove and
// import): the same edits as a running Host's AddServer and RemoveServer (the
// file's comments, order and layout kept, values written as given), the same
// checks (the file must load before the edit, and the result after it), and the
// same atomic write. A serve or mcp that follows the file applies the change as it
// applies any other edit of it. A file that does not exist is made (0600, with its
// directory), in the "mcpServers" shape.

// EntrySpec is a server entry as a command line gives it: a command to run
// (stdio), or a URL.
type EntrySpec struct {
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	URL     string
	Headers map[string]string
	// OAuth: the server signs in with OAuth ("oauth": {}), its authorization
	// server discovered from the server.
	OAuth bool
}

// JSON is s as an entry of a config file.
func (s EntrySpec) JSON() json.RawMessage {
	e := struct {
		Command string            `json:"command,omitempty"`
		Args    []string          `json:"args,omitempty"`
		Env     map[string]string `json:"env,omitempty"`
		Cwd     string            `json:"cwd,omitempty"`
		URL     string            `json:"url,omitempty"`
		Headers map[string]string `json:"headers,omitempty"`
		OAuth   *struct{}         `json:"oauth,omitempty"`
	}{Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd, URL: s.URL, Headers: s.Headers}
	if s.OAuth {
		e.OAuth = &struct{}{}
	}
	data, _ := json.Marshal(e) // strings, slices and maps of strings: never fails
	return data
}

// FileEditOptions change how a config file is edited; nil means the defaults.
type FileEditOptions struct {
	// DryRun checks the edit and says what it would do, and writes nothing.
	DryRun bool
}

// FileResult is what an edit of a config file did.
type FileResult struct {
	admin.Result
	// Created: the file did not exist (it was made, unless DryRun).
	Created bool
}

// AddServerToFile adds the server name with entry (a JSON object of a config
// file's entry's fields) to the config file at path, as Host.AddServer does.
func AddServerToFile(path, name string, entry json.RawMessage, o *FileEditOptions) (FileResult, error) {
	if err := checkName(name); err != nil {
		return FileResult{}, err
	}
	res, _, err := editFile(path, name, o, func(data []byte) ([]byte, error) { return config.AddServer(data, name, entry) })
	return res, err
}

// RemoveServerFromFile removes the server name from the config file at path.
func RemoveServerFromFile(path, name string, o *FileEditOptions) (FileResult, error) {
	res, _, err := editFile(path, name, o, func(data []byte) ([]byte, error) { return config.RemoveServer(data, name) })
	return res, err
}

// editFile makes change to the file at path (of server name: "" for several), and
// writes it unless o.DryRun: what it did, and the config the file now is.
func editFile(path, name string, o *FileEditOptions, change func([]byte) ([]byte, error)) (FileResult, *config.Config, error) {
	if o == nil {
		o = &FileEditOptions{}
	}
	data, err := readConfigFile(path)
	if err != nil {
		return FileResult{}, nil, err
	}
	out, cfg, err := editDoc(data, path, path, name, fileParseOptions(), change)
	if err != nil {
		return FileResult{}, nil, err
	}
	res := FileResult{Result: admin.Result{Source: path}, Created: data == nil}
	if name != "" {
		res.Warnings = serverWarnings(cfg.Warnings, path, name)
	}
	if o.DryRun || (data != nil && bytes.Equal(out, data)) {
		return res, cfg, nil // Saved false: nothing written
	}
	if err := writeConfigFile(path, out, data == nil); err != nil {
		return FileResult{}, nil, err
	}
	res.Saved = true
	return res, cfg, nil
}

// readConfigFile is the content of the config file at path; nil when there is
// none yet.
func readConfigFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading the config file: %w", err)
	}
	return data, nil
}

// writeConfigFile writes the config file at path atomically, making its directory
// first when the file is new.
func writeConfigFile(path string, data []byte, created bool) error {
	if created {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("the change is not made: %w", err)
		}
	}
	if err := config.WriteFileAtomic(path, data); err != nil {
		return fmt.Errorf("the change is not made: writing %s: %w", path, err)
	}
	return nil
}

// fileParseOptions check an edited file's shape without asking anyone: an
// ${input:ID} that the environment does not give takes a stand-in (its first
// option, else "input"), as the value is the running program's to ask for.
func fileParseOptions() *config.Options {
	return &config.Options{Prompt: func(in config.Input) (string, error) {
		if len(in.Options) > 0 {
			return in.Options[0], nil
		}
		return "input", nil
	}}
}
