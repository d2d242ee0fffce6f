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

// duration reads a duration field. Negative values are allowed only where they mean
// "disabled" (allowNeg). warnLarge flags plain numbers of 1000 or more, which are most
// likely milliseconds copied from a host that counts in those.
func (p *parser) duration(v *hujson.Value, fp string, allowNeg, warnLarge bool) (time.Duration, bool) {
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
	case d < 0 && !allowNeg:
		p.errAt(v, fp, "must not be negative")
		return 0, false
	}
	if warnLarge && plain && d >= 1000*time.Second {
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
