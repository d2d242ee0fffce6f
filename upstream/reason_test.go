package upstream

import (
	"strings"
	"testing"
)

// The reason a process failed is the line of its stderr that says what went wrong,
// whichever runtime wrote it, and wherever it stands among the last lines.
func TestFailureLine(t *testing.T) {
	tests := []struct{ name, stderr, want string }{
		{"node, a missing module", `node:internal/modules/cjs/loader:1210
  throw err;
  ^

Error: Cannot find module 'does-not-exist'
Require stack:
- /srv/servers/bad.js
    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
    at Module._load (node:internal/modules/cjs/loader:1038:27)
    at Object.<anonymous> (/srv/servers/bad.js:1:1) {
  code: 'MODULE_NOT_FOUND',
  requireStack: [ '/srv/servers/bad.js' ]
}

Node.js v20.20.2`, "Error: Cannot find module 'does-not-exist'"},
		{"node, an ES module", `node:internal/errors:496
    ErrorCaptureStackTrace(err);
    ^

Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /srv/index.js
    at new NodeError (node:internal/errors:405:5) {
  code: 'ERR_MODULE_NOT_FOUND'
}

Node.js v18.19.0`, "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /srv/index.js"},
		{"node, a throw whose source line names Error", `/srv/index.js:3
throw new Error('no API key');
^

Error: no API key
    at Object.<anonymous> (/srv/index.js:3:7)

Node.js v22.1.0`, "Error: no API key"},
		{"python", `Traceback (most recent call last):
  File "/srv/server.py", line 1, in <module>
    import mcp
ModuleNotFoundError: No module named 'mcp'`, "ModuleNotFoundError: No module named 'mcp'"},
		{"go panic", `panic: open config.yaml: no such file or directory

goroutine 1 [running]:
main.main()
	/srv/main.go:12 +0x1d
exit status 2`, "panic: open config.yaml: no such file or directory"},
		{"npm, a missing package", `npm error code E404
npm error 404 Not Found - GET https://registry.example/@x%2fmissing - Not found
npm error 404  '@x/missing@*' is not in this registry.
npm error A complete log of this run can be found in: /root/.npm/_logs/x.log`, "npm error 404  '@x/missing@*' is not in this registry."},
		{"a fatal word, then a goodbye", "testserver: starting up\nfatal: crash requested\ntestserver: exiting with status 2", "fatal: crash requested"},
		{"trouble in a plain sentence", "starting\ncould not connect: connection refused\nbye", "could not connect: connection refused"},
		{"one plain line", "broken", "broken"},
		{"only noise", "\n  \nNode.js v20.20.2\n", "Node.js v20.20.2"},
		{"nothing", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := failureLine(strings.Split(tt.stderr, "\n")); got != tt.want {
				t.Errorf("failureLine = %q, want %q", got, tt.want)
			}
		})
	}
}
