package demo_test

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/demo"
)

func clockSession(t *testing.T) *mcp.ClientSession {
	t.Helper()
	return connect(t, "clock", &demo.Options{
		NotesFile: "/nonexistent/never-used.json",
		Now:       func() time.Time { return fixedNow },
	})
}

func TestClockTools(t *testing.T) {
	cs := clockSession(t)
	if got, want := toolNames(t, cs), []string{"add_duration", "convert_time", "current_time"}; !slices.Equal(sorted(got), want) {
		t.Errorf("tools = %q, want %q", got, want)
	}
}

func TestClockCalls(t *testing.T) {
	cs := clockSession(t)
	tests := []struct {
		name     string
		tool     string
		args     map[string]any
		wantText string
		want     demo.TimeResult
	}{
		{
			name:     "now in UTC by default",
			tool:     "current_time",
			args:     map[string]any{},
			wantText: "2026-11-21T08:56:31Z (UTC, Saturday)",
			want:     demo.TimeResult{Time: "2026-11-21T08:56:31Z", Zone: "UTC", Weekday: "Saturday", Unix: fixedNow.Unix()},
		},
		{
			name:     "now in Paris",
			tool:     "current_time",
			args:     map[string]any{"zone": "Europe/Paris"},
			wantText: "2026-11-21T09:56:31+01:00 (Europe/Paris, Saturday)",
			want:     demo.TimeResult{Time: "2026-11-21T09:56:31+01:00", Zone: "Europe/Paris", Weekday: "Saturday", Unix: fixedNow.Unix()},
		},
		{
			name:     "now across the date line",
			tool:     "current_time",
			args:     map[string]any{"zone": "Pacific/Kiritimati"},
			wantText: "2026-11-21T22:56:31+14:00 (Pacific/Kiritimati, Saturday)",
			want:     demo.TimeResult{Time: "2026-11-21T22:56:31+14:00", Zone: "Pacific/Kiritimati", Weekday: "Saturday", Unix: fixedNow.Unix()},
		},
		{
			name:     "wall time from Paris to New York",
			tool:     "convert_time",
			args:     map[string]any{"time": "2026-11-21 09:56", "from": "Europe/Paris", "to": "America/New_York"},
			wantText: "2026-11-21T03:56:00-05:00 (America/New_York, Saturday)",
			want:     demo.TimeResult{Time: "2026-11-21T03:56:00-05:00", Zone: "America/New_York", Weekday: "Saturday", Unix: 1795251360},
		},
		{
			name:     "RFC 3339 keeps its offset whatever from says",
			tool:     "convert_time",
			args:     map[string]any{"time": "2026-07-01T23:30:00-07:00", "from": "Asia/Tokyo", "to": "Asia/Kolkata"},
			wantText: "2026-07-02T12:00:00+05:30 (Asia/Kolkata, Thursday)",
			want:     demo.TimeResult{Time: "2026-07-02T12:00:00+05:30", Zone: "Asia/Kolkata", Weekday: "Thursday", Unix: 1782973800},
		},
		{
			name:     "wall time in UTC by default, summer time in London",
			tool:     "convert_time",
			args:     map[string]any{"time": "2026-07-01 12:00", "to": "Europe/London"},
			wantText: "2026-07-01T13:00:00+01:00 (Europe/London, Wednesday)",
			want:     demo.TimeResult{Time: "2026-07-01T13:00:00+01:00", Zone: "Europe/London", Weekday: "Wednesday", Unix: 1782907200},
		},
		{
			name:     "90 minutes from now",
			tool:     "add_duration",
			args:     map[string]any{"duration": "90m"},
			wantText: "2026-11-21T10:26:31Z (UTC, Saturday)",
			want:     demo.TimeResult{Time: "2026-11-21T10:26:31Z", Zone: "UTC", Weekday: "Saturday", Unix: fixedNow.Unix() + 90*60},
		},
		{
			name:     "subtracting keeps the time's offset",
			tool:     "add_duration",
			args:     map[string]any{"time": "2026-11-21T09:56:31+01:00", "duration": "-2h30m"},
			wantText: "2026-11-21T07:26:31+01:00 (UTC+01:00, Saturday)",
			want:     demo.TimeResult{Time: "2026-11-21T07:26:31+01:00", Zone: "UTC+01:00", Weekday: "Saturday", Unix: fixedNow.Unix() - 150*60},
		},
		{
			name:     "days, shown in a zone",
			tool:     "add_duration",
			args:     map[string]any{"duration": "3d", "zone": "Europe/Paris"},
			wantText: "2026-11-24T09:56:31+01:00 (Europe/Paris, Tuesday)",
			want:     demo.TimeResult{Time: "2026-11-24T09:56:31+01:00", Zone: "Europe/Paris", Weekday: "Tuesday", Unix: fixedNow.Unix() + 3*86400},
		},
		{
			name:     "days and hours back from a wall time",
			tool:     "add_duration",
			args:     map[string]any{"time": "2026-03-01 00:00", "duration": "-1d12h", "zone": "America/Sao_Paulo"},
			wantText: "2026-02-27T12:00:00-03:00 (America/Sao_Paulo, Friday)",
			want:     demo.TimeResult{Time: "2026-02-27T12:00:00-03:00", Zone: "America/Sao_Paulo", Weekday: "Friday", Unix: 1772204400},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, text := callOK[demo.TimeResult](t, cs, tt.tool, tt.args)
			if text != tt.wantText {
				t.Errorf("text = %q, want %q", text, tt.wantText)
			}
			if got != tt.want {
				t.Errorf("structured = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestClockErrors(t *testing.T) {
	cs := clockSession(t)
	tests := []struct {
		name string
		tool string
		args map[string]any
		want []string
	}{
		{"unknown zone", "current_time", map[string]any{"zone": "Mars/Olympus_Mons"}, []string{`unknown time zone "Mars/Olympus_Mons"`, "IANA"}},
		{"server-local zone", "current_time", map[string]any{"zone": "Local"}, []string{`unknown time zone "Local"`}},
		{"path as zone", "current_time", map[string]any{"zone": "../../etc/passwd"}, []string{"unknown time zone"}},
		{"wrong argument type", "current_time", map[string]any{"zone": 7}, []string{"zone"}},
		{"unknown argument", "current_time", map[string]any{"tz": "UTC"}, []string{"tz"}},
		{"bad time", "convert_time", map[string]any{"time": "yesterday", "to": "UTC"}, []string{`invalid time "yesterday"`, "RFC 3339"}},
		{"bad from", "convert_time", map[string]any{"time": "2026-11-21 09:56", "from": "Nowhere", "to": "UTC"}, []string{"from:", `"Nowhere"`}},
		{"bad to", "convert_time", map[string]any{"time": "2026-11-21 09:56", "to": "Europe/Atlantis"}, []string{"to:", `"Europe/Atlantis"`}},
		{"empty to", "convert_time", map[string]any{"time": "2026-11-21 09:56", "to": " "}, []string{"to:", "required"}},
		{"missing to", "convert_time", map[string]any{"time": "2026-11-21 09:56"}, []string{"to"}},
		{"missing time", "convert_time", map[string]any{"to": "UTC"}, []string{"time"}},
		{"bad duration", "add_duration", map[string]any{"duration": "soon"}, []string{`invalid duration "soon"`, "90m", "3d"}},
		{"unit-less duration", "add_duration", map[string]any{"duration": "90"}, []string{`invalid duration "90"`}},
		{"huge duration", "add_duration", map[string]any{"duration": "1000000d"}, []string{`invalid duration "1000000d"`}},
		{"beyond year 9999", "add_duration", map[string]any{"time": "9999-12-31T00:00:00Z", "duration": "48h"}, []string{"9999"}},
		{"bad start time", "add_duration", map[string]any{"time": "21/11/2026", "duration": "1h"}, []string{`invalid time "21/11/2026"`}},
		{"bad result zone", "add_duration", map[string]any{"duration": "1h", "zone": "Moon/Base"}, []string{`"Moon/Base"`}},
		{"missing duration", "add_duration", map[string]any{}, []string{"duration"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			callErr(t, cs, tt.tool, tt.args, tt.want...)
		})
	}
}

// TestClockUsesRealTime checks the default clock (time.Now) with a loose bound.
func TestClockUsesRealTime(t *testing.T) {
	cs := connect(t, "clock", nil)
	before := time.Now().Unix()
	got, _ := callOK[demo.TimeResult](t, cs, "current_time", map[string]any{"zone": "UTC"})
	after := time.Now().Unix()
	if got.Unix < before || got.Unix > after {
		t.Errorf("current_time unix = %d, want within [%d, %d]", got.Unix, before, after)
	}
	if _, err := time.Parse(time.RFC3339, got.Time); err != nil {
		t.Errorf("current_time time %q: %v", got.Time, err)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
