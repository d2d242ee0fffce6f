package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"time"

	"github.com/tailscale/hujson"
)

// secondsRE matches strings that are a plain number, meaning seconds ("30", "2.5").
var secondsRE = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

var errWantDuration = errors.New(`want a duration (a number of seconds or a string like "30s")`)

// parseDuration reads a duration from a decoded JSON value: a Go duration string
// ("30s", "1m30s", "1.5s"), or a number of seconds given as a JSON number (10, 2.5) or
// as a string of digits ("30"). Hosts disagree on units; seconds is what people type.
func parseDuration(v any) (time.Duration, error) {
	switch x := v.(type) {
	case string:
		if secondsRE.MatchString(x) {
			return seconds(x)
		}
		d, err := time.ParseDuration(x)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration", x)
		}
		return d, nil
	case json.Number:
		return seconds(string(x))
	case float64:
		return seconds(strconv.FormatFloat(x, 'g', -1, 64))
	case int:
		return seconds(strconv.Itoa(x))
	case int64:
		return seconds(strconv.FormatInt(x, 10))
	}
	return 0, errWantDuration
}

// seconds converts a decimal number of seconds, refusing what a Duration can't hold.
func seconds(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%q is not a duration", s)
	}
	ns := math.Round(f * float64(time.Second))
	if err != nil || math.IsNaN(ns) || math.Abs(ns) >= math.MaxInt64 {
		return 0, fmt.Errorf("%s seconds is out of range", s)
	}
	return time.Duration(ns), nil
}

// Every duration field, of a server or of the "switchboard" section, follows one rule
// (duration): a number of seconds (JSON number or digit string) or a Go duration
// string; never negative, since "-5" is more likely a typo than a wish (0 is the way to
// say default or off); a plain number of 1000 or more is warned about, being most
// likely milliseconds copied from a host that counts in those.

// zeroMeans says what 0 means for a field, for the message that refuses a negative.
type zeroMeans string

const (
	zeroDefault zeroMeans = "the default"
	zeroOff     zeroMeans = "off"
)

// duration reads a duration field at fp by the one rule above.
func (p *parser) duration(v *hujson.Value, fp string, zero zeroMeans) (time.Duration, bool) {
	lit, _ := v.Value.(hujson.Literal)
	var x any
	plain := false
	switch lit.Kind() {
	case '"':
		s := lit.String()
		x, plain = s, secondsRE.MatchString(s)
	case '0':
		x, plain = json.Number(lit), true
	default:
		p.errAt(v, fp, "%s", errWantDuration)
		return 0, false
	}
	d, err := parseDuration(x)
	switch {
	case err != nil:
		p.errAt(v, fp, "%s", err)
		return 0, false
	case d < 0:
		p.errAt(v, fp, "must not be negative (0 means %s)", zero)
		return 0, false
	}
	if plain && d >= 1000*time.Second {
		p.warn(fp, "%s is taken as seconds, not milliseconds", lit)
	}
	return d, true
}

// disableOnZero maps an explicit 0 to -1 for settings where the user writes 0 to turn
// a feature off (heartbeat, retryFailed), since a zero field means "use the default".
func disableOnZero(d time.Duration, ok bool) time.Duration {
	if ok && d == 0 {
		return -1
	}
	return d
}
