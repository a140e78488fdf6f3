package arrowio

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// Temporary files are named ".NAME.tmp-PID-HOST-RANDOM": the writing
// process's id, a tag of its host name (so that a folder shared between
// machines is cleaned only of the files of this machine's processes) and a
// random part.
var (
	tempRE  = regexp.MustCompile(`^\..+\.tmp-([0-9]+)-([0-9a-f]{8})-[0-9a-z]+$`)
	hostTag = func() string {
		h := fnv.New32a()
		name, _ := os.Hostname()
		h.Write([]byte(name))
		return fmt.Sprintf("%08x", h.Sum32())
	}()
)

// tempPattern is the os.CreateTemp pattern of the temporary file of base.
func tempPattern(base string) string {
	return fmt.Sprintf(".%s.tmp-%d-%s-*", base, os.Getpid(), hostTag)
}

// tempName is a fresh name of that pattern.
func tempName(base string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf(".%s.tmp-%d-%s-%s", base, os.Getpid(), hostTag, hex.EncodeToString(b[:]))
}

// RemoveStale removes from dir the temporary files that Create, CreateFile
// and CommitAll leave behind when their process is killed: files named
// ".NAME.tmp-PID-HOST-RANDOM" whose host is this machine and whose process
// is no longer alive. It returns the paths it removed. Files of live
// processes (or of a process id now reused by another) are kept, and so
// are temporary files of other machines and of older versions of ordinate
// (".NAME.tmp-DIGITS"), which do not say whose they are. On systems
// without a way to tell whether a process is alive nothing is removed.
//
// Create and CreateFile call it on the output folder; their writers list
// what it removed in StaleRemoved.
func RemoveStale(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		m := tempRE.FindStringSubmatch(e.Name())
		if m == nil || m[2] != hostTag || !e.Type().IsRegular() {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil || pid <= 0 || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}
