//go:build unix

package hub_test

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/redact"
)

// A failed result that quotes a configured secret comes back with it masked, as
// the text of a failed call's error is: the model, the API's clients and the stored
// history never see it. The hub knows its config's secrets by itself (its own
// Redactor); nothing registers them for it.
func TestErrorResultsMaskSecrets(t *testing.T) {
	t.Parallel()
	const secret = "vault-key-Hu72pQe" // shaped like no well-known token: masked as configured
	srv := testserver.Stdio(t, "vault")
	srv.Env = map[string]string{"VAULT_KEY": secret}
	cfg := cfgOf(srv)
	h, _ := startHub(t, cfg, nil)
	got := callError(t, h, "fail", map[string]any{"text": "the vault refused the key $VAULT_KEY"})
	if got != "the vault refused the key "+redact.Mask {
		t.Errorf("error result %q, want the key masked", got)
	}
	if strings.Contains(got, secret) {
		t.Errorf("the error result shows the secret: %q", got)
	}
}
