package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/game"
)

// The --identity file keeps who the player is across restarts: its player id, and the secret
// a server gave it on its first join there (game/identity.go). With both, a client that
// restarts gets its seat back; without the flag they live in memory only, and a restart is a
// new player. The secret opens the player's seat, so the file is written with mode 0600 and
// replaced whole (a temporary file renamed over it), never left half written.
//
// The file is text, three lines at most, each ending in a line feed, and has exactly one
// spelling per identity:
//
//	ackattack identity 1
//	player 6f1c2a4e-0b8d-4c3e-9a51-3d2f7e8c9b10
//	secret 000102…1f
//
// The first line names the format and its version. The player line holds the id in its
// canonical form (lower-case hex, 8-4-4-4-12, not the nil id). The secret line, 64 lower-case
// hex digits and never all zero, is absent until a server has given the player a secret.

// identityHeader is the first line of an identity file.
const identityHeader = "ackattack identity 1"

// errIdentity is wrapped by every error parseIdentity returns.
var errIdentity = errors.New("not an identity file")

// identity is what the file holds.
type identity struct {
	Player uuid.UUID
	Secret game.Secret // zero: none yet
}

// appendIdentity appends id's file contents to b.
func appendIdentity(b []byte, id identity) []byte {
	b = append(b, identityHeader+"\nplayer "...)
	b = append(b, id.Player.String()...)
	b = append(b, '\n')
	if !id.Secret.IsZero() {
		b = append(b, "secret "...)
		b = hex.AppendEncode(b, id.Secret[:])
		b = append(b, '\n')
	}
	return b
}

// parseIdentity reads an identity file's contents. It never panics, and what it accepts
// appendIdentity writes back byte for byte.
func parseIdentity(b []byte) (identity, error) {
	var id identity
	lines := bytes.SplitAfter(b, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	if len(lines) < 2 || len(lines) > 3 {
		return identity{}, fmt.Errorf("%w: %d lines, want 2 or 3", errIdentity, len(lines))
	}
	for i, l := range lines {
		if !bytes.HasSuffix(l, []byte("\n")) {
			return identity{}, fmt.Errorf("%w: line %d does not end in a line feed", errIdentity, i+1)
		}
		lines[i] = l[:len(l)-1]
	}
	if string(lines[0]) != identityHeader {
		return identity{}, fmt.Errorf("%w: the first line is %q, want %q", errIdentity, lines[0], identityHeader)
	}
	p, ok := bytes.CutPrefix(lines[1], []byte("player "))
	if !ok {
		return identity{}, fmt.Errorf("%w: line 2 is not \"player <id>\"", errIdentity)
	}
	pid, err := uuid.ParseBytes(p)
	if err != nil || pid == uuid.Nil || pid.String() != string(p) {
		return identity{}, fmt.Errorf("%w: the player id %q is not one in canonical form", errIdentity, p)
	}
	id.Player = pid
	if len(lines) == 3 {
		s, ok := bytes.CutPrefix(lines[2], []byte("secret "))
		if !ok || len(s) != 2*game.SecretSize {
			return identity{}, fmt.Errorf("%w: line 3 is not \"secret <%d hex digits>\"", errIdentity, 2*game.SecretSize)
		}
		if _, err := hex.Decode(id.Secret[:], s); err != nil || bytes.ContainsAny(s, "ABCDEF") {
			return identity{}, fmt.Errorf("%w: the secret is not %d lower-case hex digits", errIdentity, 2*game.SecretSize)
		}
		if id.Secret.IsZero() {
			return identity{}, fmt.Errorf("%w: the secret is all zero", errIdentity)
		}
	}
	return id, nil
}

// openIdentity reads the identity file at path, or, if there is none, makes one with a new
// player id (and no secret yet), so that a path the client cannot write to fails now, before
// the game, and not when the server hands over the secret.
func openIdentity(path string) (identity, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		id, err := parseIdentity(b)
		if err != nil {
			return identity{}, fmt.Errorf("%s: %w", path, err)
		}
		return id, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return identity{}, err
	}
	id := identity{Player: uuid.New()}
	if err := saveIdentity(path, id); err != nil {
		return identity{}, err
	}
	return id, nil
}

// saveIdentity writes id to path with mode 0600: into a temporary file in the same directory,
// then renamed over path, so that a crash leaves the old file or the new one, never a part.
func saveIdentity(path string, id identity) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(appendIdentity(nil, id))
	if err := errors.Join(werr, f.Chmod(0o600), f.Sync(), f.Close()); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
