package sandbox

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Proxy is the host allow-list (--sandbox-net hosts:...): an HTTP proxy
// on loopback that tunnels CONNECT requests, and forwards plain HTTP
// requests, only to the hosts allowed, and refuses the others with 403,
// telling refuse. Landlock lets the confined processes connect to its
// port alone, so it is their one way out; their HTTP clients find it
// through HTTPS_PROXY and HTTP_PROXY. It sees host names, not what goes
// through a tunnel: TLS stays end to end.
type Proxy struct {
	ln     net.Listener
	srv    *http.Server
	allow  []string
	refuse func(hostport string)

	mu      sync.Mutex
	tunnels map[net.Conn]struct{}
	closed  bool
	wg      sync.WaitGroup
}

// StartProxy listens on 127.0.0.1 (a free port) and serves until Close.
// hosts are names, or *.domain for a domain's subdomains.
func StartProxy(hosts []string, refuse func(hostport string)) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, allow: hosts, refuse: refuse, tunnels: map[net.Conn]struct{}{}}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	p.wg.Go(func() { _ = p.srv.Serve(ln) })
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Port is the proxy's port.
func (p *Proxy) Port() uint16 { return uint16(p.ln.Addr().(*net.TCPAddr).Port) }

// Allowed says whether host (without port) is on the list.
func (p *Proxy) Allowed(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, a := range p.allow {
		if d, ok := strings.CutPrefix(a, "*."); ok {
			if strings.HasSuffix(host, "."+d) {
				return true
			}
		} else if host == a {
			return true
		}
	}
	return false
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hostport := r.Host
	if r.Method != http.MethodConnect {
		if !r.URL.IsAbs() {
			http.Error(w, "architect sandbox proxy: only proxy requests are served", http.StatusBadRequest)
			return
		}
		hostport = r.URL.Host
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, "80"
		if r.URL.Scheme == "https" {
			port = "443"
		}
	}
	if !p.Allowed(host) {
		if p.refuse != nil {
			p.refuse(net.JoinHostPort(host, port))
		}
		http.Error(w, "architect sandbox: "+host+" is not in --sandbox-net hosts", http.StatusForbidden)
		return
	}
	if r.Method == http.MethodConnect {
		p.tunnel(w, r, net.JoinHostPort(host, port))
		return
	}
	p.forward(w, r)
}

// tunnel connects to target and copies both ways until either side ends.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request, target string) {
	d := net.Dialer{Timeout: 30 * time.Second}
	up, err := d.DialContext(r.Context(), "tcp", target)
	if err != nil {
		http.Error(w, "architect sandbox proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		_ = up.Close()
		http.Error(w, "architect sandbox proxy: cannot tunnel", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		_ = up.Close()
		return
	}
	if !p.track(up, down) {
		return
	}
	_, _ = down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	done := make(chan struct{}, 2)
	go func() {
		if n := buf.Reader.Buffered(); n > 0 {
			b, _ := buf.Reader.Peek(n)
			_, _ = up.Write(b)
		}
		_, _ = io.Copy(up, down)
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(down, up)
		done <- struct{}{}
	}()
	<-done
	p.untrack(up, down)
	<-done
}

// forward sends a plain HTTP request on and copies the answer back.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	res, err := tr.RoundTrip(out)
	if err != nil {
		http.Error(w, "architect sandbox proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	for k, vs := range res.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(res.StatusCode)
	_, _ = io.Copy(w, res.Body)
}

func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range cs {
			_ = c.Close()
		}
		return false
	}
	for _, c := range cs {
		p.tunnels[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
		delete(p.tunnels, c)
	}
}

// Close stops the proxy and ends its tunnels.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.tunnels {
		_ = c.Close()
	}
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := p.srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		_ = p.srv.Close()
	}
	_ = p.srv.Close()
	p.wg.Wait()
}
