// Package strutil holds small string helpers.
package strutil

import "strings"

// Shout upper-cases s.
func Shout(s string) string {
	return strings.ToUpper(s)
}
