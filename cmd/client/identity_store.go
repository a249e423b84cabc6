package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/cmd/internal/cli"
	"github.com/ackattack/ackattack/game"
)

// The identities a client keeps without --identity, so that a player who quits and runs the
// same join command again gets the seat back: the server holds a vanished player's seat for
// --seat-hold (30 s) and opens it only to a proof of the secret it gave that player
// (game/identity.go), so a client that forgot the secret is refused ("name is taken"), and one
// that kept it is seated again.
//
// Where: a directory of the user's configuration directory, os.UserConfigDir()/ackattack/
// identities ($XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support on macOS,
// %AppData% on Windows), mode 0700: the files hold the secrets that open the seats.
//
// What: one identity file (identity.go's format, mode 0600) per server and player name. The
// secret is the one a server gave one of its players, so the server is part of the key (its
// address as --connect resolved it), and so is the name, folded blind to case and look-alikes
// (game.FoldName), so that two students who share a machine's account under two names are two
// players, and ann and ANN one. The file is named by a hash of the two: a name holds
// characters a file name cannot.
//
// How many: at most maxKeptIdentities; keeping one more removes the one used longest ago (a
// file's modification time: loading one touches it).
//
// Who: a player who joins a server with --connect. Not an embedded game or a lesson (their
// server is not the class's, and hands out secrets of its own), not --spectate (a spectator
// has no seat and is given no secret), not --bot (a script's player: a benchmark's forty bots
// would push the players' identities out), and not with --identity FILE, which keeps its own.

// maxKeptIdentities bounds the identities kept in the directory.
const maxKeptIdentities = 32

// identityKeyLabel keeps the hash that names a file apart from any other use of the inputs.
const identityKeyLabel = "ackattack kept identity\x00"

// identityStore is the directory of kept identities.
type identityStore struct{ dir string }

// openIdentityStore opens the store in the user's configuration directory, making the
// directory if there is none. An error says why no identity can be kept there.
func openIdentityStore() (identityStore, error) {
	base, err := os.UserConfigDir()
	if err != nil {
		return identityStore{}, fmt.Errorf("no configuration directory: %w", err)
	}
	return newIdentityStore(filepath.Join(base, "ackattack", "identities"))
}

// newIdentityStore opens the store in dir, making it (mode 0700) if there is none, and checks
// that the client can write there, so that a directory it cannot use is found now, not when the
// server hands over the secret.
func newIdentityStore(dir string) (identityStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return identityStore{}, err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return identityStore{}, err
	}
	if !fi.IsDir() {
		return identityStore{}, fmt.Errorf("%s is not a directory", dir)
	}
	// MkdirAll leaves the mode of a directory that exists alone: one that others may read
	// (made by hand, say) is made private, as the secrets in it must be.
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return identityStore{}, fmt.Errorf("%s is open to other users and cannot be made private: %w", dir, err)
		}
	}
	probe, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return identityStore{}, err
	}
	probe.Close()
	os.Remove(probe.Name())
	return identityStore{dir: dir}, nil
}

// path is the file of the identity kept for server and name.
func (s identityStore) path(server, name string) string {
	h := sha256.Sum256([]byte(identityKeyLabel + server + "\x00" + game.FoldName(name)))
	return filepath.Join(s.dir, hex.EncodeToString(h[:12])+".id")
}

// isKeptIdentity reports whether file is named as path names a kept identity.
func isKeptIdentity(file string) bool {
	h, ok := strings.CutSuffix(file, ".id")
	if !ok || len(h) != 24 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}

// load returns the identity kept for server and name (an error wrapping fs.ErrNotExist if
// there is none), and marks it as used now.
func (s identityStore) load(server, name string) (identity, error) {
	path := s.path(server, name)
	b, err := os.ReadFile(path)
	if err != nil {
		return identity{}, err
	}
	id, err := parseIdentity(b)
	if err != nil {
		return identity{}, fmt.Errorf("%s: %w", path, err)
	}
	now := time.Now()
	os.Chtimes(path, now, now) // the store keeps the identities used last; a failure costs nothing now
	return id, nil
}

// save keeps id for server and name (saveIdentity: mode 0600, never half written), then removes
// the identities used longest ago beyond maxKeptIdentities.
func (s identityStore) save(server, name string, id identity) error {
	path := s.path(server, name)
	if err := saveIdentity(path, id); err != nil {
		return err
	}
	s.prune(path)
	return nil
}

// prune removes the identities used longest ago until maxKeptIdentities are left, keeping the
// one at own.
func (s identityStore) prune(own string) {
	cli.KeepNewest(s.dir, maxKeptIdentities, own, isKeptIdentity)
}

// keptIdentity is the identity for joining server as name: the one the store keeps for them,
// or a new one, kept at once (always new when fresh: --new-identity). keep keeps the secret
// the server gives; it is nil, and the identity new, when there is nowhere to keep one. note,
// if not empty, is for the player to read once: why the identity is not kept, or why a kept
// one was replaced.
func keptIdentity(server, name string, fresh bool) (id identity, keep func(identity) error, note string) {
	const lost = "a restart will be a new player, kept out of the seat while the server holds it (--identity FILE keeps it elsewhere)"
	st, err := openIdentityStore()
	if err != nil {
		return identity{Player: uuid.New()}, nil, fmt.Sprintf("your identity is not kept (%v): %s", err, lost)
	}
	if !fresh {
		id, err = st.load(server, name)
		switch {
		case err == nil:
			return id, func(id identity) error { return st.save(server, name, id) }, ""
		case errors.Is(err, fs.ErrNotExist):
		default:
			note = fmt.Sprintf("the identity kept for %s as %s cannot be read (%v): you join as a new player", server, name, err)
		}
	}
	id = identity{Player: uuid.New()}
	if err := st.save(server, name, id); err != nil {
		return id, nil, fmt.Sprintf("your identity is not kept (%v): %s", err, lost)
	}
	return id, func(id identity) error { return st.save(server, name, id) }, note
}
