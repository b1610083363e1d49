package strutil

import "testing"

func TestShout(t *testing.T) {
	if Shout("hi") != "HI" {
		t.Fatal("Shout")
	}
}
