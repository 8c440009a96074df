// Command node-bench measures dra4j's fake driver and the Go helper's anchor driver side by side,
// from the kubelet's side of the socket: each driver runs as a real process against the same API
// server, and this harness calls it over its Unix sockets with grpc-go, the kubelet's gRPC stack.
// Runs are interleaved (dra4j, Go, Go, dra4j, ...); the table shows per metric the median of each
// driver over the runs and the median and range of the per-run ratio dra4j / Go.
//
// See benchmarks/README.md ("Node benchmark") for the command and what each row measures.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	var (
		kubeconfig   = flag.String("kubeconfig", "", "an API server to use (admin credentials; e.g. the e2e cluster's); empty: start the test kit's standalone API server")
		apiserverJar = flag.String("apiserver-jar", "dra-testkit/target/dra-testkit-apiserver.jar", "the test kit's standalone API server")
		apiserverJVM = flag.String("apiserver-jvm-flags", "", "JVM flags for the test kit's API server, space-separated")
		java         = flag.String("java", "java", "the JVM of the test kit's API server and of the dra4j-17 driver (today's JDK 17 configuration)")
		imageJava    = flag.String("image-java", "java", "the JVM of the dra4j driver: the image's runtime (run.sh gives the one examples/images/runtime.sh links for the jar)")
		driverJar    = flag.String("driver-jar", "examples/fake-driver/target/fake-dra-driver.jar", "dra4j's fake driver")
		jvmFlags     = flag.String("jvm-flags", defaultJVMFlags, "the dra4j driver's JVM flags (the image's), space-separated; {cache} is the jar's .aot next to it, {archive} its .jsa")
		jdk17Flags   = flag.String("jdk17-jvm-flags", defaultJDK17Flags, "the dra4j-17 driver's JVM flags, space-separated, with --java")
		altJVMFlags  = flag.String("alt-jvm-flags", "", "JVM flags for a second dra4j driver, dra4j-alt (--only dra4j,dra4j-alt): a JVM lever measured interleaved with the shipped flags, against the same machine's noise; the table then compares the two")
		altJava      = flag.String("alt-java", "", "the JVM of dra4j-alt (default: --image-java), e.g. another JDK's bin/java")
		altJar       = flag.String("alt-jar", "", "the jar of dra4j-alt (default: --driver-jar), e.g. an older commit's build of the fake driver: two builds measured interleaved; {cache} and {archive} in --alt-jvm-flags are this jar's")
		goDriver     = flag.String("go-driver", "", "the Go anchor driver binary (benchmarks/go-anchor/build.sh prints it)")
		goFlags      = flag.String("go-flags", "", "extra flags for the Go anchor driver, space-separated, after the harness's own (e.g. --devices-per-slice 128: the Go anchor's densest slices, where the harness gives it dra4j's 64)")
		runs         = flag.Int("runs", 3, "runs per driver, interleaved")
		pairs        = flag.Int("pairs", 1000, "prepare+unprepare pairs per measured phase")
		callers      = flag.Int("callers", 8, "concurrent callers of the concurrent phase")
		longPairs    = flag.Int("long-pairs", 10000, "pairs before the footprint is read (0: skip)")
		publish      = flag.String("publish", "1000,10000", "device counts of the publish scenario, comma-separated (empty: skip)")
		rolling      = flag.Duration("rolling", 3*time.Second, "how long calls go on after the old instance stopped in the rolling update (0: skip)")
		workDir      = flag.String("work-dir", os.TempDir(), "where each driver's registrar, plugin and CDI directories go (on disk by default: a prepare fsyncs)")
		only         = flag.String("only", "dra4j,dra4j-17,go", "drivers to run, comma-separated: dra4j, dra4j-17, dra4j-alt, go; the table's ratios are each driver's to the last one's")
		out          = flag.String("out", "", "also write every run's figures as JSON to this file")
		tracePath    = flag.String("trace", "", "also write every call of the pairs phases to this CSV file (driver, run, phase, caller, index, start as Unix µs and ms into the phase, prepare and unprepare ms)")
	)
	flag.Parse()
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	if *goDriver == "" && strings.Contains(*only, "go") {
		log.Fatal("--go-driver is required (benchmarks/go-anchor/build.sh prints its path)")
	}
	var publishSizes []int
	for _, s := range strings.Split(*publish, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			log.Fatalf("--publish: %q is not a positive device count", s)
		}
		publishSizes = append(publishSizes, n)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir, err := os.MkdirTemp(*workDir, "nb-")
	if err != nil {
		log.Fatal(err)
	}
	if !keep {
		defer os.RemoveAll(dir)
	}

	var api *apiServer
	if *kubeconfig != "" {
		api, err = connect(*kubeconfig, "API server of "+*kubeconfig+":")
	} else {
		api, err = startTestkit(*java, *apiserverJar, strings.Fields(*apiserverJVM), dir)
	}
	if err != nil {
		log.Fatal(err)
	}
	defer api.stop()
	// log.Fatal skips deferred calls: stop the API server (a child process) first.
	fatalf := func(format string, args ...any) {
		api.stop()
		log.Fatalf(format, args...)
	}
	trace, err := openTrace(*tracePath)
	if err != nil {
		fatalf("--trace: %v", err)
	}
	b := &bench{api: api, namespace: "dra4j-bench", workDir: dir, pairs: *pairs, callers: *callers,
		longPairs: *longPairs, publish: publishSizes, rollingFor: *rolling, trace: trace}
	if err := api.ensureNamespace(ctx, b.namespace); err != nil {
		fatalf("%v", err)
	}

	dra4j := func(label, column, java, jar, jvmFlags string) driverKind {
		jarBase := strings.TrimSuffix(jar, ".jar")
		placeholders := strings.NewReplacer("{cache}", jarBase+".aot", "{archive}", jarBase+".jsa")
		flags := strings.Fields(placeholders.Replace(jvmFlags))
		return driverKind{
			label:  label,
			column: column,
			command: func(serialized bool) []string {
				cmd := append([]string{java}, flags...)
				if serialized {
					// dra4j serializes calls unless the provider is thread-safe; the fake provider
					// says it is unless this property says otherwise.
					cmd = append(cmd, "-Ddra4j.fake.threadSafe=false")
				}
				// The health port would clash between the two instances of a rolling update.
				return append(cmd, "-jar", jar, "run", "--health-port", "-1")
			},
		}
	}
	drivers := map[string]driverKind{
		"dra4j":     dra4j("dra4j", "dra4j (image, JDK 25)", *imageJava, *driverJar, *jvmFlags),
		"dra4j-17":  dra4j("dra4j-17", "dra4j (JDK 17)", *java, *driverJar, *jdk17Flags),
		"dra4j-alt": dra4j("dra4j-alt", "dra4j, --alt-jvm-flags/--alt-jar", firstOf(*altJava, *imageJava), firstOf(*altJar, *driverJar), *altJVMFlags),
		"go": {
			label:  "Go",
			column: "Go helper",
			command: func(serialized bool) []string {
				// The fake provider reports health, so dra4j publishes 64 devices per slice (the API's
				// limit for slices whose devices may be tainted); the Go anchor publishes the same
				// slices, so a publish compares the same writes. --go-flags comes later and wins.
				cmd := append([]string{*goDriver, "run", "--serialize=" + strconv.FormatBool(serialized), "--devices-per-slice", "64"}, api.goFlags...)
				return append(cmd, strings.Fields(*goFlags)...)
			},
		},
	}

	var order []driverKind
	for _, name := range strings.Split(*only, ",") {
		k, ok := drivers[strings.TrimSpace(name)]
		if !ok {
			fatalf("--only: unknown driver %q (dra4j, dra4j-17, dra4j-alt, go)", name)
		}
		if k.label == "dra4j-alt" && *altJVMFlags == "" {
			fatalf("--only dra4j-alt needs --alt-jvm-flags")
		}
		order = append(order, k)
	}
	log.Printf("API server: %s; work directory %s; %d runs, %d pairs, %d callers, long run %d pairs, publish %v",
		api.kind, dir, *runs, *pairs, *callers, *longPairs, publishSizes)
	results := map[string][]figures{}
	for run := 0; run < *runs; run++ {
		// Interleaved, and the order alternates, so neither driver always runs on a fresher server.
		seq := order
		if run%2 == 1 {
			seq = reversed(order)
		}
		for _, k := range seq {
			log.Printf("run %d: %s", run+1, k.label)
			f, err := b.measure(ctx, k, run)
			if err != nil {
				fatalf("run %d, %s: %v", run+1, k.label, err)
			}
			results[k.label] = append(results[k.label], f)
		}
	}
	if err := trace.close(); err != nil {
		fatalf("--trace: %v", err)
	}
	fmt.Printf("\nNode benchmark: %d runs each, interleaved; %s; %d pairs per phase, %d callers; work directory on %s\n\n",
		*runs, api.kind, *pairs, *callers, filepath.Dir(dir))
	// One column per driver of --only, in its order; the ratios are each driver's to the last one's.
	var columns []column
	for _, k := range order {
		columns = append(columns, column{name: k.column, runs: results[k.label]})
	}
	printTable(os.Stdout, metrics(*callers, publishSizes), columns)
	if *out != "" {
		data, _ := json.MarshalIndent(results, "", "  ")
		if err := os.WriteFile(*out, data, 0o644); err != nil {
			fatalf("%v", err)
		}
	}
}

// The image's JVM flags: the java launcher reads examples/images/jvm.options, the one file the
// images, the charts and the image build's AOT training read, then the cache that run.sh trained
// with them for the jar's path (the image build does the same for /app). -XX:MaxRAM stands in for
// the charts' 160Mi memory limit, from which the JVM sizes its heap.
const defaultJVMFlags = "-XX:MaxRAM=160m @examples/images/jvm.options -XX:AOTCache={cache}"

// Today's JDK 17 configuration, as the images ran before they moved to JDK 25 (issue 34): Debian
// 12's OpenJDK 17 with these flags and the class-data-sharing archive the Maven build trains.
const defaultJDK17Flags = "-XX:MaxRAM=160m -XX:+UseSerialGC -XX:MaxRAMPercentage=50 -XX:TieredStopAtLevel=1 -Xss512k -XX:SharedArchiveFile={archive} -Xshare:auto"

func firstOf(value, fallback string) string {
	if value != "" {
		return value
	}
	return fallback
}

func reversed(k []driverKind) []driverKind {
	out := make([]driverKind, len(k))
	for i := range k {
		out[len(k)-1-i] = k[i]
	}
	return out
}
