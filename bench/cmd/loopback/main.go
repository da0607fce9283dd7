// Command loopback serves the loopback load target (package
// bench/loopback) until interrupted, then prints how many requests it
// answered. bench/run.sh starts it pinned to its own core; bench/swarm.sh
// runs it as a Swarm service, the target of known service time (-delay)
// that sharded runs are checked against.
//
//	loopback -addr 127.0.0.1:7701 [-key KEY] [-delay 50ms] [-in-container]   (or LOOPBACK_KEY)
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/searchbench/searchbench/bench/loopback"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:7701", "listen address (a loopback address unless -in-container; a port below 32768)")
	key := flag.String("key", "", "master key the requests must carry (or LOOPBACK_KEY); empty: none")
	delay := flag.Duration("delay", 0, "hold every search this long before answering it: a known service time")
	inContainer := flag.Bool("in-container", false, "listen on addr whatever its interface: inside a container, whose own network namespace is the boundary (a Swarm service's overlay network)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "loopback: no arguments expected")
		os.Exit(2)
	}
	if *delay < 0 {
		fmt.Fprintln(os.Stderr, "loopback: -delay must be ≥ 0")
		os.Exit(2)
	}
	s := &loopback.Server{Key: *key, Delay: *delay}
	if s.Key == "" {
		s.Key = os.Getenv("LOOPBACK_KEY")
	}
	var a net.Addr
	var err error
	if *inContainer {
		var ln net.Listener
		if ln, err = net.Listen("tcp", *addr); err == nil {
			a = ln.Addr()
			go s.Serve(ln)
		}
	} else {
		a, err = s.Listen(*addr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loopback:", err)
		os.Exit(2)
	}
	fmt.Printf("loopback: listening on http://%s, searches held %v\n", a, *delay)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	s.Close()
	fmt.Printf("loopback: %d requests, %d searches\n", s.Requests(), s.Searches())
}
