package editdist

import "testing"

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"disabeld", "disabled", 1}, {"comand", "command", 1},
		{"hearbeet", "heartbeat", 2}, {"dev", "env", 2}, {"kitten", "sitting", 3},
	} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}
