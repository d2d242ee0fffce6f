package identity_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain: a Verifier holds no goroutine, and keeps no connection open after a
// fetch of the provider's keys (the tests' providers are closed at their ends).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
