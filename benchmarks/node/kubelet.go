package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	drapb "k8s.io/kubelet/pkg/apis/dra/v1"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

// The kubelet's side of the plugin contract, as far as the benchmarks need it: registration
// (GetInfo, NotifyRegistrationStatus) and one gRPC client per registered DRA endpoint, created
// and connected at once, as the kubelet's DRAPluginManager does.

const (
	getInfoTimeout = time.Second      // the kubelet's GetInfo deadline
	callTimeout    = 45 * time.Second // the kubelet's Prepare/Unprepare deadline
)

// plugin is one registered driver instance.
type plugin struct {
	registrationSocket string
	endpoint           string
	conn               *grpc.ClientConn
	client             drapb.DRAPluginClient
}

func (p *plugin) close() {
	if p != nil && p.conn != nil {
		_ = p.conn.Close()
	}
}

// findSocket returns a registration socket in dir that is not in skip, or "".
func findSocket(dir string, skip map[string]bool) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		// Like the kubelet's plugin watcher: sockets only, names starting with "." ignored.
		if strings.HasPrefix(e.Name(), ".") || e.Type()&os.ModeSocket == 0 {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if !skip[path] {
			return path
		}
	}
	return ""
}

// awaitRegistration polls dir (every pollInterval, the harness's resolution) for a registration
// socket not in skip that answers GetInfo for driverName, then registers it like the kubelet.
// alive is checked on every poll so a driver that died is reported at once.
func awaitRegistration(ctx context.Context, dir, driverName string, skip map[string]bool, alive func() error) (*plugin, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := alive(); err != nil {
			return nil, err
		}
		if path := findSocket(dir, skip); path != "" {
			p, err := register(ctx, path, driverName)
			if err == nil {
				return p, nil
			}
		}
		time.Sleep(pollInterval)
	}
}

const pollInterval = 2 * time.Millisecond

func register(ctx context.Context, socket, driverName string) (*plugin, error) {
	conn, err := grpc.NewClient("unix:"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	reg := registerapi.NewRegistrationClient(conn)
	infoCtx, cancel := context.WithTimeout(ctx, getInfoTimeout)
	info, err := reg.GetInfo(infoCtx, &registerapi.InfoRequest{})
	cancel()
	if err != nil {
		return nil, err
	}
	if info.Type != registerapi.DRAPlugin || info.Name != driverName {
		return nil, fmt.Errorf("%s: plugin %s of type %s, want DRA plugin %s", socket, info.Name, info.Type, driverName)
	}
	endpoint := info.Endpoint
	if endpoint == "" {
		endpoint = socket
	}
	dra, err := grpc.NewClient("unix:"+endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	dra.Connect()
	notifyCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	_, err = reg.NotifyRegistrationStatus(notifyCtx, &registerapi.RegistrationStatus{PluginRegistered: true})
	cancel()
	if err != nil {
		_ = dra.Close()
		return nil, fmt.Errorf("%s: NotifyRegistrationStatus: %w", socket, err)
	}
	return &plugin{registrationSocket: socket, endpoint: endpoint, conn: dra, client: drapb.NewDRAPluginClient(dra)}, nil
}

// claimRef is a claim as the kubelet names it in a call.
type claimRef struct {
	namespace, name, uid string
	device               string
}

func (c claimRef) pb() *drapb.Claim {
	return &drapb.Claim{Namespace: c.namespace, Name: c.name, Uid: c.uid}
}

func (p *plugin) prepare(ctx context.Context, c claimRef) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := p.client.NodePrepareResources(ctx, &drapb.NodePrepareResourcesRequest{Claims: []*drapb.Claim{c.pb()}})
	if err != nil {
		return err
	}
	r, ok := resp.Claims[c.uid]
	if !ok {
		return fmt.Errorf("prepare %s/%s: no result for the claim", c.namespace, c.name)
	}
	if r.Error != "" {
		return fmt.Errorf("prepare %s/%s: %s", c.namespace, c.name, r.Error)
	}
	if len(r.Devices) != 1 || len(r.Devices[0].CdiDeviceIds) == 0 {
		return fmt.Errorf("prepare %s/%s: want one device with CDI ids, got %v", c.namespace, c.name, r.Devices)
	}
	return nil
}

func (p *plugin) unprepare(ctx context.Context, c claimRef) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := p.client.NodeUnprepareResources(ctx, &drapb.NodeUnprepareResourcesRequest{Claims: []*drapb.Claim{c.pb()}})
	if err != nil {
		return err
	}
	r, ok := resp.Claims[c.uid]
	if !ok {
		return fmt.Errorf("unprepare %s/%s: no result for the claim", c.namespace, c.name)
	}
	if r.Error != "" {
		return fmt.Errorf("unprepare %s/%s: %s", c.namespace, c.name, r.Error)
	}
	return nil
}
