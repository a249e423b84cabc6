package main

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ackattack/ackattack/cmd/internal/tmuxtest"
)

// TestChurnWithTheBinaries: students start clients and kill them (kill -9, no goodbye), each
// start a new player id. The server frees every vanished player's seat after --seat-hold, so
// a client that comes after the holds joins and plays. (The same, at length, runs in virtual
// time: game's TestChurnNeverFillsTheServer.)
func TestChurnWithTheBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes for about 16 s")
	}
	t.Parallel() // it mostly waits: the other tests of the package run meanwhile
	client := tmuxtest.BuildPackage(t, "client", "github.com/ackattack/ackattack/cmd/client")
	addr := freeUDPAddr(t)
	serverDone := make(chan int, 1)
	stats := filepath.Join(t.TempDir(), "server.json")
	go func() {
		// 11 s of churn and the late client, and room for slow process starts on a loaded
		// machine: the server must still be there when the late client has played.
		serverDone <- run([]string{"--headless", "--listen", addr, "--bots", "1", "--seat-hold", "1s", "--duration", "16s", "--stats", stats, "--log-level", "warn"})
	}()
	time.Sleep(300 * time.Millisecond)

	// Nine starts for seven free seats, all killed once they have had time to join.
	var kids []*exec.Cmd
	for i := range 9 {
		cmd := exec.Command(client, "--headless", "--quiet", "--bot", "--connect", addr, "--name", "kid"+strconv.Itoa(i), "--log-level", "error")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		kids = append(kids, cmd)
	}
	time.Sleep(time.Second) // a loopback join takes milliseconds
	for _, cmd := range kids {
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	// Every vanished player times out (5 s) and its hold runs out (1 s).
	time.Sleep(6500 * time.Millisecond)
	report := filepath.Join(t.TempDir(), "late.json")
	late := exec.Command(client, "--headless", "--quiet", "--bot", "--connect", addr, "--name", "late", "--duration", "2s", "--stats", report)
	if out, err := late.CombinedOutput(); err != nil {
		t.Fatalf("the client after the churn: %v\n%s", err, out)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Frame       int               `json:"frame"`
		WorldHashes map[string]string `json:"world_hashes"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Frame == 0 || len(r.WorldHashes) == 0 {
		t.Errorf("the client after the churn did not play: %s (%v)", b, err)
	}
	if code := <-serverDone; code != 0 {
		t.Errorf("server exit code %d", code)
	}
}

// freeUDPAddr is a loopback address with a port nobody uses right now.
func freeUDPAddr(t *testing.T) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	return pc.LocalAddr().String()
}
