package demo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // zone names must resolve even on hosts without a zoneinfo database

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TimeResult is the structured output of every clock tool.
type TimeResult struct {
	Time    string `json:"time" jsonschema:"the instant in RFC 3339, in the reported zone"`
	Zone    string `json:"zone" jsonschema:"the IANA zone name, or a fixed offset such as UTC+05:30"`
	Weekday string `json:"weekday" jsonschema:"the day of the week in that zone"`
	Unix    int64  `json:"unix" jsonschema:"seconds since 1970-01-01T00:00:00Z"`
}

// CurrentTimeInput is the input of current_time.
type CurrentTimeInput struct {
	Zone string `json:"zone,omitempty" jsonschema:"IANA time zone name such as Europe/Paris or America/New_York; default UTC"`
}

// ConvertTimeInput is the input of convert_time.
type ConvertTimeInput struct {
	Time string `json:"time" jsonschema:"the time to convert: RFC 3339 (2026-11-21T09:56:31+01:00) or a local wall time '2006-01-02 15:04' interpreted in the 'from' zone"`
	From string `json:"from,omitempty" jsonschema:"IANA zone of a time without offset; default UTC (ignored when the time carries an offset)"`
	To   string `json:"to" jsonschema:"IANA zone to convert to, e.g. Asia/Tokyo"`
}

// AddDurationInput is the input of add_duration.
type AddDurationInput struct {
	Time     string `json:"time,omitempty" jsonschema:"start time in RFC 3339 (or '2006-01-02 15:04' in 'zone'); default now"`
	Duration string `json:"duration" jsonschema:"Go duration to add, such as 90m or -2h30m; days are accepted too: 3d or 1d12h"`
	Zone     string `json:"zone,omitempty" jsonschema:"IANA zone of the result; default the start time's offset, or UTC"`
}

func addClockTools(s *mcp.Server, o Options) {
	now := o.Now
	mcp.AddTool(s, &mcp.Tool{
		Name:        "current_time",
		Title:       "Current time",
		Description: "Returns the current date and time in an IANA time zone (default UTC).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in CurrentTimeInput) (*mcp.CallToolResult, TimeResult, error) {
		loc, err := loadZone(in.Zone)
		if err != nil {
			return nil, TimeResult{}, err
		}
		return timeResult(now().In(loc))
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "convert_time",
		Title:       "Convert time",
		Description: "Converts a time from one IANA time zone to another: the same instant, shown in the target zone.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in ConvertTimeInput) (*mcp.CallToolResult, TimeResult, error) {
		from, err := loadZone(in.From)
		if err != nil {
			return nil, TimeResult{}, fmt.Errorf("from: %w", err)
		}
		if strings.TrimSpace(in.To) == "" {
			return nil, TimeResult{}, errors.New(`to: a target zone is required, e.g. "Asia/Tokyo" or "UTC"`)
		}
		to, err := loadZone(in.To)
		if err != nil {
			return nil, TimeResult{}, fmt.Errorf("to: %w", err)
		}
		t, err := parseTime(in.Time, from)
		if err != nil {
			return nil, TimeResult{}, err
		}
		return timeResult(t.In(to))
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "add_duration",
		Title:       "Add duration",
		Description: "Adds a duration (negative to subtract; units ns, us, ms, s, m, h and d for 24-hour days) to a time, default now.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in AddDurationInput) (*mcp.CallToolResult, TimeResult, error) {
		var loc *time.Location // nil: keep the start time's own zone
		if strings.TrimSpace(in.Zone) != "" {
			l, err := loadZone(in.Zone)
			if err != nil {
				return nil, TimeResult{}, err
			}
			loc = l
		}
		d, err := parseDuration(in.Duration)
		if err != nil {
			return nil, TimeResult{}, err
		}
		var start time.Time
		if strings.TrimSpace(in.Time) == "" {
			start = now().UTC()
		} else {
			wall := loc
			if wall == nil {
				wall = time.UTC
			}
			if start, err = parseTime(in.Time, wall); err != nil {
				return nil, TimeResult{}, err
			}
		}
		end := start.Add(d)
		if loc != nil {
			end = end.In(loc)
		}
		return timeResult(end)
	})
}

// timeResult renders t as the text and structured output of a clock tool.
func timeResult(t time.Time) (*mcp.CallToolResult, TimeResult, error) {
	if y := t.Year(); y < 0 || y > 9999 {
		return nil, TimeResult{}, fmt.Errorf("the result is outside the years 0000-9999 that RFC 3339 can express")
	}
	out := TimeResult{
		Time:    t.Format(time.RFC3339),
		Zone:    zoneName(t),
		Weekday: t.Weekday().String(),
		Unix:    t.Unix(),
	}
	text := fmt.Sprintf("%s (%s, %s)", out.Time, out.Zone, out.Weekday)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// zoneName names t's location: its IANA name, or its offset for a fixed zone.
func zoneName(t time.Time) string {
	if name := t.Location().String(); name != "" && name != "Local" {
		return name
	}
	_, off := t.Zone()
	return offsetName(off)
}

func offsetName(off int) string {
	if off == 0 {
		return "UTC"
	}
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("UTC%c%02d:%02d", sign, off/3600, off/60%60)
}

// loadZone resolves an IANA zone name; empty means UTC.
func loadZone(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.EqualFold(name, "UTC") || name == "Z" {
		return time.UTC, nil
	}
	if name == "Local" { // the server's local zone is meaningless to a remote caller
		return nil, fmt.Errorf(`unknown time zone %q: use an IANA name such as "Europe/Paris" or "UTC"`, name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf(`unknown time zone %q: use an IANA name such as "Europe/Paris" or "UTC"`, name)
	}
	return loc, nil
}

// wallLayouts are accepted times without an offset, read in a given zone.
var wallLayouts = []string{
	"2006-01-02 15:04",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04",
	"2006-01-02T15:04:05",
	"2006-01-02",
}

// parseTime reads an RFC 3339 time (which keeps its own offset) or a wall time of
// wallLayouts in loc.
func parseTime(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, errors.New(`time: a time is required, e.g. "2026-11-21T09:56:31+01:00" or "2026-11-21 09:56"`)
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return inOwnOffset(t), nil
	}
	for _, layout := range wallLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf(`invalid time %q: use RFC 3339 ("2026-11-21T09:56:31+01:00") or "2026-11-21 09:56"`, s)
}

// inOwnOffset re-expresses a parsed RFC 3339 time in a fixed zone of its own offset
// (time.Parse would otherwise attach the server's Local zone when the offsets agree).
func inOwnOffset(t time.Time) time.Time {
	_, off := t.Zone()
	if off == 0 {
		return t.UTC()
	}
	return t.In(time.FixedZone(offsetName(off), off))
}

// parseDuration is time.ParseDuration plus a "d" unit of 24 hours, so that "3d",
// "1d12h" and "-1.5d" work.
func parseDuration(s string) (time.Duration, error) {
	orig := s
	bad := func() (time.Duration, error) {
		return 0, fmt.Errorf(`invalid duration %q: use Go syntax like "90m", "-2h30m" or "1h15m30s", or days like "3d"`, orig)
	}
	s = strings.TrimSpace(s)
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return bad()
	}
	if s == "0" {
		return 0, nil
	}
	var days float64
	var rest strings.Builder
	for s != "" {
		i := 0
		for i < len(s) && (s[i] == '.' || ('0' <= s[i] && s[i] <= '9')) {
			i++
		}
		j := i
		for j < len(s) && s[j] != '.' && (s[j] < '0' || s[j] > '9') {
			j++
		}
		num, unit := s[:i], s[i:j]
		if num == "" || unit == "" {
			return bad()
		}
		if unit == "d" {
			n, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return bad()
			}
			days += n
		} else {
			rest.WriteString(num + unit)
		}
		s = s[j:]
	}
	var d time.Duration
	if rest.Len() > 0 {
		var err error
		if d, err = time.ParseDuration(rest.String()); err != nil {
			return bad()
		}
	}
	dayPart := days * float64(24*time.Hour)
	if dayPart+float64(d) >= math.MaxInt64 {
		return 0, fmt.Errorf("invalid duration %q: longer than the maximum of about 290 years", orig)
	}
	d += time.Duration(dayPart)
	if neg {
		d = -d
	}
	return d, nil
}
