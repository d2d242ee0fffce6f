package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestInputEnv(t *testing.T) {
	for id, want := range map[string]string{
		"key": "SWITCHBOARD_INPUT_KEY", "api-key": "SWITCHBOARD_INPUT_API_KEY", "gh.token2": "SWITCHBOARD_INPUT_GH_TOKEN2",
	} {
		if got := InputEnv(id); got != want {
			t.Errorf("InputEnv(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestInputs(t *testing.T) {
	const inputs = `"inputs": [
		{"type": "promptString", "id": "api-key", "description": "API key", "password": true},
		{"type": "promptString", "id": "region", "default": "eu"},
		{"type": "pickString", "id": "mode", "options": ["fast", {"label": "Safe", "value": "safe"}]},
		{"type": "command", "id": "cmd", "command": "shellCommand.execute"},
		{"type": "promptString", "id": "unused"}
	]`
	srv := func(members string) string {
		return `{` + inputs + `, "servers": {"x": {"command": "c", ` + members + `}}}`
	}
	tests := []struct {
		name    string
		members string
		env     map[string]string
		answer  map[string]string // what the prompt answers; missing id = an error
		noAsk   bool              // Options.Prompt is nil
		want    []string          // args
		asked   []string          // the ids asked, in order
		err     string            // the whole error
	}{
		{name: "from the variable", members: `"args": ["${input:api-key}"]`, env: map[string]string{"SWITCHBOARD_INPUT_API_KEY": "k1"},
			want: []string{"k1"}},
		{name: "asked once for two uses", members: `"args": ["${input:api-key}", "x${input:api-key}"]`, answer: map[string]string{"api-key": "k2"},
			want: []string{"k2", "xk2"}, asked: []string{"api-key"}},
		{name: "empty answer takes the default", members: `"args": ["${input:region}"]`, answer: map[string]string{"region": ""},
			want: []string{"eu"}, asked: []string{"region"}},
		{name: "default when nothing can be asked", members: `"args": ["${input:region}"]`, noAsk: true, want: []string{"eu"}},
		{name: "pickString by value", members: `"args": ["${input:mode}"]`, answer: map[string]string{"mode": "safe"},
			want: []string{"safe"}, asked: []string{"mode"}},
		{name: "pickString not an option", members: `"args": ["${input:mode}"]`, answer: map[string]string{"mode": "slow"},
			asked: []string{"mode"}, err: "mcp.json:7:48: servers.x.args[0]: ${input:mode} must be one of fast, safe"},
		{name: "no value", members: `"args": ["a", "${input:api-key}"]`, noAsk: true,
			err: "mcp.json:7:53: servers.x.args[1]: ${input:api-key} has no value: set $SWITCHBOARD_INPUT_API_KEY (nothing to ask on)"},
		{name: "the prompt's error", members: `"env": {"K": "${input:api-key}"}`,
			asked: []string{"api-key"}, err: "mcp.json:7:52: servers.x.env.K: ${input:api-key} has no value: set $SWITCHBOARD_INPUT_API_KEY (stdin is not a terminal)"},
		{name: "not declared", members: `"args": ["${input:nope}"]`,
			err: `mcp.json:7:48: servers.x.args[0]: ${input:nope} is not declared in "inputs" (declare it, or set $SWITCHBOARD_INPUT_NOPE)`},
		{name: "command input", members: `"args": ["${input:cmd}"]`,
			err: `mcp.json:7:48: servers.x.args[0]: ${input:cmd} is a "command" input, which Switchboard can't run: set $SWITCHBOARD_INPUT_CMD`},
		{name: "command input from its variable", members: `"args": ["${input:cmd}"]`, env: map[string]string{"SWITCHBOARD_INPUT_CMD": "v"}, want: []string{"v"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			opts := envOf(tt.env)
			if !tt.noAsk {
				opts.Prompt = func(in Input) (string, error) {
					asked = append(asked, in.ID)
					if in.ID == "api-key" && (in.Description != "API key" || !in.Password || in.Env != "SWITCHBOARD_INPUT_API_KEY") {
						t.Errorf("Prompt got %+v", in)
					}
					if v, ok := tt.answer[in.ID]; ok {
						return v, nil
					}
					return "", errors.New("stdin is not a terminal")
				}
			}
			cfg, err := Parse([]byte(srv(tt.members)), "mcp.json", opts)
			if !slices.Equal(asked, tt.asked) {
				t.Errorf("asked %q, want %q", asked, tt.asked)
			}
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v\nwant %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Server("x").Args; !slices.Equal(got, tt.want) {
				t.Errorf("args = %q, want %q", got, tt.want)
			}
			// Input values are secrets wherever they are used.
			for _, v := range tt.want {
				if !slices.Contains(cfg.Secrets(), strings.TrimPrefix(v, "x")) {
					t.Errorf("Secrets() = %q lacks the input value %q", cfg.Secrets(), v)
				}
			}
		})
	}
}

func TestInputsDeclarationErrors(t *testing.T) {
	got := parseErrs(t, `{"inputs": [{"type": "promptString"}, 1, {"id": "a"}, {"id": "a"}], "servers": {}}`, nil)
	want := []string{
		`mcp.json:1:13: inputs[0]: "id" is required`,
		`mcp.json:1:39: inputs[1]: want an object`,
		`mcp.json:1:62: inputs[3].id: duplicate input id "a" (first at 1:49)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWorkspaceFolderExpansion(t *testing.T) {
	project := t.TempDir()
	src := `{"servers": {"x": {"command": "${workspaceFolder}/bin/server", "args": ["--root", "${workspaceFolder}"], "cwd": "${workspaceFolder}"}}}`
	path := filepath.Join(project, ".vscode", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Server("x")
	if s.Command != project+"/bin/server" || !slices.Equal(s.Args, []string{"--root", project}) || s.Cwd != project {
		t.Errorf("server = %+v, want ${workspaceFolder} = %s", s, project)
	}
	if slices.Contains(cfg.Secrets(), project) {
		t.Errorf("the workspace folder is not a secret: %q", cfg.Secrets())
	}

	// Options.WorkspaceFolder wins; without it and without a file, the reference stays
	// as written, with one warning.
	cfg, err = Parse([]byte(src), "<bytes>", &Options{WorkspaceFolder: "/w"})
	if err != nil || cfg.Server("x").Cwd != "/w" {
		t.Errorf("with WorkspaceFolder: %+v, %v", cfg, err)
	}
	cfg, err = Parse([]byte(src), "<bytes>", nil)
	if err != nil || cfg.Server("x").Cwd != "${workspaceFolder}" {
		t.Fatalf("without: %+v, %v", cfg, err)
	}
	want := []string{"servers.x.command: ${workspaceFolder} left as written: the config is not a file"}
	if !slices.Equal(cfg.Warnings, want) {
		t.Errorf("warnings = %q, want %q", cfg.Warnings, want)
	}
}
