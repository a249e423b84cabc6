package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// kernelLink is a link that the kernel makes, not the binaries' conditioner: every process in a
// network namespace of its own, each namespace joined to a bridge by a veth pair, and each
// process's datagrams lost (and delayed) by the kernel as they leave its namespace and as they
// come in, so that a datagram between two processes meets the impairment twice, as it meets
// two conditioners when every process has the same link flags.
type kernelLink struct {
	loss  float64       // percent of the datagrams dropped, on the way out and on the way in
	delay time.Duration // added on the way out and on the way in
}

// kernelNet is a kernelLink's namespaces while a game runs on them.
type kernelNet struct {
	prefix string   // of the namespaces' names
	hosts  []string // the namespaces of the processes, in the order of addr
	// netem: the kernel delays the datagrams too (the netem qdisc); without it (a kernel built
	// without CONFIG_NET_SCH_NETEM) it only drops them (iptables' statistic match), and the
	// delay is left to the processes' --latency.
	netem bool
}

// kernelNetAddr is the address of host i (0 the server) on the namespaces' bridge: the
// benchmarking range (RFC 2544), which no other host of the machine uses.
func kernelNetAddr(i int) string { return "198.18.0." + strconv.Itoa(i+1) }

// newKernelNet makes a namespace for each of n processes and a hub with the bridge, and
// removes them when t ends. It skips t when the machine cannot: not root, no `ip`, no network
// namespaces, or neither netem nor iptables.
func newKernelNet(t testing.TB, n int, l kernelLink) *kernelNet {
	t.Helper()
	addrs := make([]string, n)
	for i := range addrs {
		addrs[i] = kernelNetAddr(i) + "/24"
	}
	k := newNamespaces(t, addrs)
	must := func(args ...string) {
		t.Helper()
		if err := runTool(args...); err != nil {
			t.Fatal(err)
		}
	}
	// netem on both ends of each veth pair: the process's end delays and drops what it sends,
	// the hub's end what it receives.
	netem := []string{"netem", "loss", strconv.FormatFloat(l.loss, 'f', -1, 64) + "%", "delay", strconv.FormatInt(l.delay.Milliseconds(), 10) + "ms"}
	k.netem = runTool(append([]string{"tc", "-n", k.hosts[0], "qdisc", "add", "dev", "eth0", "root"}, netem...)...) == nil
	if k.netem {
		for i, ns := range k.hosts {
			if i > 0 {
				must(append([]string{"tc", "-n", ns, "qdisc", "add", "dev", "eth0", "root"}, netem...)...)
			}
			must(append([]string{"tc", "-n", k.prefix + "hub", "qdisc", "add", "dev", "p" + strconv.Itoa(i), "root"}, netem...)...)
		}
		return k
	}
	if _, err := exec.LookPath("iptables"); err != nil {
		t.Skip("this kernel has no netem qdisc, and iptables (for the statistic match) is not installed: apt-get install iptables")
	}
	p := strconv.FormatFloat(l.loss/100, 'f', -1, 64)
	for _, ns := range k.hosts {
		for _, chain := range []string{"OUTPUT", "INPUT"} {
			must("ip", "netns", "exec", ns, "iptables", "-A", chain, "-p", "udp", "-m", "statistic", "--mode", "random", "--probability", p, "-j", "DROP")
		}
	}
	return k
}

// namespaceNets numbers the namespaces' sets of a test process, so that two sets never share
// a name (a benchmark that runs again before the first run's clean-up).
var namespaceNets atomic.Int64

// newNamespaces makes a network namespace for each address of addrs (an address with its
// prefix, "198.18.0.1/24", on the namespace's eth0) and a hub with a bridge that joins them,
// with no impairment, and removes them when t ends. It skips t when the machine cannot: not
// root, no `ip`, or no network namespaces.
func newNamespaces(t testing.TB, addrs []string) *kernelNet {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a kernel link needs root, for network namespaces")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("a kernel link needs ip (iproute2)")
	}
	k := &kernelNet{prefix: fmt.Sprintf("ackattack-%d-%d-", os.Getpid(), namespaceNets.Add(1))}
	hub := k.prefix + "hub"
	if err := runTool("ip", "netns", "add", hub); err != nil {
		t.Skipf("no network namespace: %v", err)
	}
	t.Cleanup(k.remove)
	must := func(args ...string) {
		t.Helper()
		if err := runTool(args...); err != nil {
			t.Fatal(err)
		}
	}
	must("ip", "-n", hub, "link", "add", "br0", "type", "bridge")
	must("ip", "-n", hub, "link", "set", "br0", "up")
	for i, addr := range addrs {
		ns := k.prefix + strconv.Itoa(i)
		k.hosts = append(k.hosts, ns)
		port := "p" + strconv.Itoa(i)
		must("ip", "netns", "add", ns)
		must("ip", "link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", port, "netns", hub)
		must("ip", "-n", ns, "addr", "add", addr, "dev", "eth0")
		must("ip", "-n", ns, "link", "set", "eth0", "up")
		must("ip", "-n", ns, "link", "set", "lo", "up")
		must("ip", "-n", hub, "link", "set", port, "master", "br0")
		must("ip", "-n", hub, "link", "set", port, "up")
	}
	return k
}

// command is how to run bin with args as host i of the kernel net: in its namespace (ip netns
// exec runs it in place, so the process is bin itself).
func (k *kernelNet) command(i int, bin string, args ...string) (string, []string) {
	return "ip", append([]string{"netns", "exec", k.hosts[i], bin}, args...)
}

// remove deletes the namespaces, and with them their veth pairs and rules.
func (k *kernelNet) remove() {
	for _, ns := range append(k.hosts, k.prefix+"hub") {
		_ = runTool("ip", "netns", "delete", ns)
	}
}

// runTool runs a command and returns its error with what it printed.
func runTool(args ...string) error {
	cmd := exec.Command(args[0], args[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(out.Bytes()))
	}
	return nil
}
