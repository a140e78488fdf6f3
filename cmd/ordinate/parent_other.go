//go:build !linux

package main

// exitWithParent ignores ORDINATE_EXIT_WITH_PARENT outside Linux, which has
// no parent-death signal: there a host must kill its child itself.
func exitWithParent() (watched, gone bool, err error) { return false, false, nil }
