/*
 * A fake libnvidia-ml.so.1 for dra4j's spi-nvidia tests.
 *
 * Written for dra4j from the documented NVML C API (function signatures, struct layouts and return
 * codes); it contains no NVIDIA code. It implements only the calls spi-nvidia makes, backed by an
 * in-memory model of GPUs, MIG instances and an event queue.
 *
 * Configuration: a key=value file, read when NVML is initialised from an uninitialised state (so
 * one test JVM can run many scenarios without reloading the library). Its path comes from
 * fake_nvml_set_config() or, failing that, the FAKE_NVML_CONFIG environment variable; without a
 * file there is one default GPU. Keys:
 *
 *   gpus=N                       number of GPUs (0..16), default 1
 *   driver_version=550.54.15     nvmlSystemGetDriverVersion
 *   cuda_version=12040           nvmlSystemGetCudaDriverVersion(_v2)
 *   init_error=CODE              nvmlInit* fails with CODE
 *   fail.FUNCTION=CODE           FUNCTION fails with CODE for every device
 *   proc_root=DIR                write MIG capability files like the kernel driver does:
 *                                DIR/driver/nvidia/capabilities/gpu<minor>/mig/gi<G>[/ci<C>]/access
 *   events=G:TYPE[:DATA[:GI[:CI]]],...   events queued at init; TYPE is xid, dbe or sbe
 *   gpu.I.name / uuid / busid / minor / memory / arch / brand / cc (e.g. 8.0)
 *   gpu.I.mig_capable=0|1        default 1
 *   gpu.I.mig=0|1                current MIG mode, default 0
 *   gpu.I.mig_toggle=0|1         whether nvmlDeviceSetMigMode takes effect without a reset, default 1
 *   gpu.I.instances=P@S[/C+C..],...  static MIG instances: GPU instance profile index P at placement
 *                                start S, with compute instance profile indexes C (default: one CI
 *                                spanning the GPU instance)
 *   gpu.I.events=MASK            supported event types, default xid|dbe|sbe
 *   gpu.I.lost=1                 every call on the GPU (and its MIG devices) returns GPU_IS_LOST
 *   gpu.I.fail.FUNCTION=CODE     FUNCTION fails with CODE for this GPU
 *
 * Test-only entry points (not NVML): fake_nvml_set_config, fake_nvml_inject_event,
 * fake_nvml_set_lost, fake_nvml_init_count.
 *
 * Build with -DFAKE_NVML_LEGACY to leave out nvmlInitWithFlags and
 * nvmlSystemGetCudaDriverVersion_v2, like an old driver.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef int nvmlReturn_t;

#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_TIMEOUT 10
#define NVML_ERROR_GPU_IS_LOST 15
#define NVML_ERROR_RESET_REQUIRED 16
#define NVML_ERROR_IN_USE 19
#define NVML_ERROR_INSUFFICIENT_RESOURCES 23
#define NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25
#define NVML_ERROR_UNKNOWN 999

#define EVENT_SBE 0x1ULL
#define EVENT_DBE 0x2ULL
#define EVENT_XID 0x8ULL

#define MAX_GPUS 16
#define MAX_GI 8
#define MAX_CI 8
#define MAX_MIG 8
#define MAX_EVENTS 256
#define MAX_SETS 16
#define MAX_FAILS 32
#define NO_ID 0xFFFFFFFFu

/* ---- NVML structs (layouts as documented in nvml.h) ---- */

typedef struct {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

typedef struct {
  unsigned int start;
  unsigned int size;
} nvmlGpuInstancePlacement_t;

typedef struct {
  unsigned int version;
  unsigned int id;
  unsigned int isP2pSupported;
  unsigned int sliceCount;
  unsigned int instanceCount;
  unsigned int multiprocessorCount;
  unsigned int copyEngineCount;
  unsigned int decoderCount;
  unsigned int encoderCount;
  unsigned int jpegCount;
  unsigned int ofaCount;
  unsigned long long memorySizeMB;
  char name[96];
} nvmlGpuInstanceProfileInfo_v2_t;

#define GI_PROFILE_INFO_V2_VERSION ((unsigned int)(sizeof(nvmlGpuInstanceProfileInfo_v2_t) | (2u << 24)))

typedef struct {
  void *device;
  unsigned int id;
  unsigned int profileId;
  nvmlGpuInstancePlacement_t placement;
} nvmlGpuInstanceInfo_t;

typedef struct {
  unsigned int id;
  unsigned int sliceCount;
  unsigned int instanceCount;
  unsigned int multiprocessorCount;
  unsigned int sharedCopyEngineCount;
  unsigned int sharedDecoderCount;
  unsigned int sharedEncoderCount;
  unsigned int sharedJpegCount;
  unsigned int sharedOfaCount;
} nvmlComputeInstanceProfileInfo_t;

typedef struct {
  void *device;
  void *gpuInstance;
  unsigned int id;
  unsigned int profileId;
  nvmlGpuInstancePlacement_t placement;
} nvmlComputeInstanceInfo_t;

typedef struct {
  void *device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlEventData_t;

/* ---- the model ---- */

/* GPU instance profiles, indexed like NVML_GPU_INSTANCE_PROFILE_*; values resemble an 80 GB part. */
struct gi_profile {
  int supported;
  unsigned int id, slices, instances, sms, ce, dec, enc, jpeg, ofa;
  unsigned long long mem_mb;
  const char *name;
  unsigned int nplacements;
  unsigned int starts[8];
  unsigned int size;
};

static const struct gi_profile GI_PROFILES[] = {
    {1, 19, 1, 7, 14, 1, 0, 0, 0, 0, 9728, "MIG 1g.10gb", 7, {0, 1, 2, 3, 4, 5, 6}, 1},
    {1, 14, 2, 3, 28, 2, 1, 0, 0, 0, 19968, "MIG 2g.20gb", 3, {0, 2, 4}, 2},
    {1, 9, 3, 2, 42, 3, 2, 0, 0, 0, 40192, "MIG 3g.40gb", 2, {0, 4}, 4},
    {1, 5, 4, 1, 56, 4, 2, 0, 0, 0, 40192, "MIG 4g.40gb", 1, {0}, 4},
    {1, 0, 7, 1, 98, 7, 5, 0, 1, 1, 80896, "MIG 7g.80gb", 1, {0}, 8},
    {0},
    {0},
    {1, 20, 1, 1, 14, 1, 1, 0, 1, 1, 9728, "MIG 1g.10gb+me", 7, {0, 1, 2, 3, 4, 5, 6}, 1},
    {0},
    {1, 15, 1, 4, 14, 1, 0, 0, 0, 0, 19968, "MIG 1g.20gb", 4, {0, 2, 4, 6}, 2},
};
#define GI_PROFILE_COUNT ((unsigned int)(sizeof(GI_PROFILES) / sizeof(GI_PROFILES[0])))

/* Compute instance profiles: index -> slices, like NVML_COMPUTE_INSTANCE_PROFILE_*. */
static const unsigned int CI_SLICES[] = {1, 2, 3, 4, 7};
#define CI_PROFILE_COUNT 5u

enum { KIND_GPU = 1, KIND_MIG = 2 };

struct gpu;
struct gi;

struct ci {
  int used;
  unsigned int id, profile, start, size;
  struct gi *gi;
};

struct gi {
  int used;
  unsigned int id, profile, start, size;
  struct ci ci[MAX_CI];
  struct gpu *gpu;
};

struct mig {
  int kind;
  struct gpu *gpu;
  struct gi *gi;
  struct ci *ci;
  char uuid[96];
};

struct fail {
  char fn[96];
  int code;
};

struct gpu {
  int kind;
  unsigned int index, minor;
  char name[96], uuid[96], busid[32];
  unsigned long long memory;
  unsigned int arch, brand;
  int cc_major, cc_minor;
  int mig_capable, mig_current, mig_pending, mig_toggle;
  int lost;
  unsigned long long supported_events;
  struct gi gi[MAX_GI];
  struct mig mig[MAX_MIG];
  unsigned int mig_count;
  struct fail fails[MAX_FAILS];
  int nfails;
};

struct event {
  unsigned int gpu;
  unsigned long long type, data;
  unsigned int gi, ci;
};

struct event_set {
  int used;
  unsigned long long mask[MAX_GPUS];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int init_count;
static char config_path[4096];
static char proc_root[4096];
static char driver_version[80];
static int cuda_version;
static int init_error;
static unsigned int ngpus;
static struct gpu gpus[MAX_GPUS];
static struct fail global_fails[MAX_FAILS];
static int nglobal_fails;
static struct event events[MAX_EVENTS];
static unsigned int nevents;
static struct event_set sets[MAX_SETS];

/* ---- helpers ---- */

static int fail_code(const char *fn, const struct gpu *g) {
  if (g != NULL) {
    if (g->lost) {
      return NVML_ERROR_GPU_IS_LOST;
    }
    for (int i = 0; i < g->nfails; i++) {
      if (strcmp(g->fails[i].fn, fn) == 0) {
        return g->fails[i].code;
      }
    }
  }
  for (int i = 0; i < nglobal_fails; i++) {
    if (strcmp(global_fails[i].fn, fn) == 0) {
      return global_fails[i].code;
    }
  }
  return NVML_SUCCESS;
}

static void add_fail(struct fail *list, int *n, const char *fn, const char *code) {
  if (*n < MAX_FAILS) {
    snprintf(list[*n].fn, sizeof(list[*n].fn), "%s", fn);
    list[*n].code = atoi(code);
    (*n)++;
  }
}

static void copy_str(char *dst, unsigned int len, const char *src) {
  snprintf(dst, len, "%s", src);
}

static int str_out(const char *value, char *buf, unsigned int len) {
  if (buf == NULL) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  if (strlen(value) + 1 > len) {
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  memcpy(buf, value, strlen(value) + 1);
  return NVML_SUCCESS;
}

static void mkdirs(const char *path) {
  char tmp[4096];
  snprintf(tmp, sizeof(tmp), "%s", path);
  for (char *p = tmp + 1; *p; p++) {
    if (*p == '/') {
      *p = 0;
      mkdir(tmp, 0755);
      *p = '/';
    }
  }
  mkdir(tmp, 0755);
}

static unsigned int gi_cap_minor(const struct gi *gi) { return gi->gpu->minor * 1000 + gi->id * 20 + 10; }

static unsigned int ci_cap_minor(const struct ci *ci) { return gi_cap_minor(ci->gi) + 1 + ci->id; }

static void write_access(const char *dir, unsigned int minor) {
  char file[4200];
  mkdirs(dir);
  snprintf(file, sizeof(file), "%s/access", dir);
  FILE *f = fopen(file, "w");
  if (f != NULL) {
    fprintf(f, "DeviceFileMinor: %u\nDeviceFileMode: 292\nDeviceFileModify: 1\n", minor);
    fclose(f);
  }
}

static void gi_dir(const struct gi *gi, char *out, size_t len) {
  snprintf(out, len, "%s/driver/nvidia/capabilities/gpu%u/mig/gi%u", proc_root, gi->gpu->minor, gi->id);
}

static void publish_caps(const struct gi *gi) {
  if (proc_root[0] == 0) {
    return;
  }
  char dir[4200];
  gi_dir(gi, dir, sizeof(dir));
  write_access(dir, gi_cap_minor(gi));
  for (int c = 0; c < MAX_CI; c++) {
    if (gi->ci[c].used) {
      char cdir[4400];
      snprintf(cdir, sizeof(cdir), "%s/ci%u", dir, gi->ci[c].id);
      write_access(cdir, ci_cap_minor(&gi->ci[c]));
    }
  }
}

static void remove_ci_caps(const struct ci *ci) {
  if (proc_root[0] == 0) {
    return;
  }
  char dir[4200], path[4400];
  gi_dir(ci->gi, dir, sizeof(dir));
  snprintf(path, sizeof(path), "%s/ci%u/access", dir, ci->id);
  unlink(path);
  snprintf(path, sizeof(path), "%s/ci%u", dir, ci->id);
  rmdir(path);
}

static void remove_gi_caps(const struct gi *gi) {
  if (proc_root[0] == 0) {
    return;
  }
  char dir[4200], path[4400];
  gi_dir(gi, dir, sizeof(dir));
  snprintf(path, sizeof(path), "%s/access", dir);
  unlink(path);
  rmdir(dir);
}

/* MIG device handles: one per compute instance, ordered by GPU instance then compute instance. */
static void rebuild_migs(struct gpu *g) {
  g->mig_count = 0;
  memset(g->mig, 0, sizeof(g->mig));
  for (int i = 0; i < MAX_GI; i++) {
    struct gi *gi = &g->gi[i];
    if (!gi->used) {
      continue;
    }
    for (int c = 0; c < MAX_CI; c++) {
      if (gi->ci[c].used && g->mig_count < MAX_MIG) {
        struct mig *m = &g->mig[g->mig_count++];
        m->kind = KIND_MIG;
        m->gpu = g;
        m->gi = gi;
        m->ci = &gi->ci[c];
        snprintf(m->uuid, sizeof(m->uuid), "MIG-%08x-%04x-4%03x-8%03x-%012x", 0xa100u + g->index, gi->id,
                 gi->ci[c].id, g->minor, 0x5a5au);
      }
    }
  }
}

static int placement_free(const struct gpu *g, unsigned int start, unsigned int size) {
  for (int i = 0; i < MAX_GI; i++) {
    const struct gi *o = &g->gi[i];
    if (o->used && start < o->start + o->size && o->start < start + size) {
      return 0;
    }
  }
  return 1;
}

static struct gi *new_gi(struct gpu *g, unsigned int profile, unsigned int start) {
  const struct gi_profile *p = &GI_PROFILES[profile];
  int valid = 0;
  for (unsigned int i = 0; i < p->nplacements; i++) {
    valid |= p->starts[i] == start;
  }
  if (!valid || !placement_free(g, start, p->size)) {
    return NULL;
  }
  unsigned int id = 1;
  for (;;) {
    int taken = 0;
    for (int i = 0; i < MAX_GI; i++) {
      taken |= g->gi[i].used && g->gi[i].id == id;
    }
    if (!taken) {
      break;
    }
    id++;
  }
  for (int i = 0; i < MAX_GI; i++) {
    if (!g->gi[i].used) {
      struct gi *gi = &g->gi[i];
      memset(gi, 0, sizeof(*gi));
      gi->used = 1;
      gi->id = id;
      gi->profile = profile;
      gi->start = start;
      gi->size = p->size;
      gi->gpu = g;
      return gi;
    }
  }
  return NULL;
}

static struct ci *new_ci(struct gi *gi, unsigned int profile) {
  unsigned int usedSlices = 0;
  for (int c = 0; c < MAX_CI; c++) {
    if (gi->ci[c].used) {
      usedSlices += gi->ci[c].size;
    }
  }
  if (usedSlices + CI_SLICES[profile] > GI_PROFILES[gi->profile].slices) {
    return NULL;
  }
  unsigned int id = 0;
  for (;;) {
    int taken = 0;
    for (int c = 0; c < MAX_CI; c++) {
      taken |= gi->ci[c].used && gi->ci[c].id == id;
    }
    if (!taken) {
      break;
    }
    id++;
  }
  for (int c = 0; c < MAX_CI; c++) {
    if (!gi->ci[c].used) {
      struct ci *ci = &gi->ci[c];
      ci->used = 1;
      ci->id = id;
      ci->profile = profile;
      ci->start = usedSlices;
      ci->size = CI_SLICES[profile];
      ci->gi = gi;
      return ci;
    }
  }
  return NULL;
}

static unsigned int full_ci_profile(const struct gi *gi) {
  for (unsigned int c = 0; c < CI_PROFILE_COUNT; c++) {
    if (CI_SLICES[c] == GI_PROFILES[gi->profile].slices) {
      return c;
    }
  }
  return 0;
}

/* "P@S[/C+C...]" */
static void parse_instances(struct gpu *g, const char *spec) {
  char buf[1024];
  snprintf(buf, sizeof(buf), "%s", spec);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
    unsigned int profile = 0, start = 0;
    if (sscanf(tok, "%u@%u", &profile, &start) != 2 || profile >= GI_PROFILE_COUNT ||
        !GI_PROFILES[profile].supported) {
      fprintf(stderr, "fake-nvml: bad instance spec '%s'\n", tok);
      continue;
    }
    struct gi *gi = new_gi(g, profile, start);
    if (gi == NULL) {
      fprintf(stderr, "fake-nvml: instance '%s' does not fit\n", tok);
      continue;
    }
    char *cis = strchr(tok, '/');
    if (cis == NULL) {
      new_ci(gi, full_ci_profile(gi));
    } else {
      char *csave = NULL;
      for (char *c = strtok_r(cis + 1, "+", &csave); c != NULL; c = strtok_r(NULL, "+", &csave)) {
        unsigned int cp = (unsigned int)atoi(c);
        if (cp < CI_PROFILE_COUNT) {
          new_ci(gi, cp);
        }
      }
    }
  }
  rebuild_migs(g);
}

static void push_event(unsigned int gpu, unsigned long long type, unsigned long long data, unsigned int gi,
                       unsigned int ci) {
  if (nevents < MAX_EVENTS) {
    events[nevents].gpu = gpu;
    events[nevents].type = type;
    events[nevents].data = data;
    events[nevents].gi = gi;
    events[nevents].ci = ci;
    nevents++;
  }
}

static void parse_events(const char *spec) {
  char buf[2048];
  snprintf(buf, sizeof(buf), "%s", spec);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
    unsigned int gpu = 0, gi = NO_ID, ci = NO_ID;
    unsigned long long data = 0;
    char type[16] = {0};
    int n = sscanf(tok, "%u:%15[a-z]:%llu:%u:%u", &gpu, type, &data, &gi, &ci);
    if (n < 2) {
      fprintf(stderr, "fake-nvml: bad event spec '%s'\n", tok);
      continue;
    }
    unsigned long long t = strcmp(type, "xid") == 0 ? EVENT_XID : strcmp(type, "dbe") == 0 ? EVENT_DBE : EVENT_SBE;
    push_event(gpu, t, data, gi, ci);
  }
}

static void set_defaults(void) {
  ngpus = 1;
  copy_str(driver_version, sizeof(driver_version), "550.54.15");
  cuda_version = 12040;
  init_error = 0;
  proc_root[0] = 0;
  nglobal_fails = 0;
  nevents = 0;
  memset(sets, 0, sizeof(sets));
  memset(gpus, 0, sizeof(gpus));
  for (unsigned int i = 0; i < MAX_GPUS; i++) {
    struct gpu *g = &gpus[i];
    g->kind = KIND_GPU;
    g->index = i;
    g->minor = i;
    copy_str(g->name, sizeof(g->name), "NVIDIA A100-SXM4-80GB");
    snprintf(g->uuid, sizeof(g->uuid), "GPU-%08x-1111-4222-8333-%012x", 0xa100u, i);
    snprintf(g->busid, sizeof(g->busid), "00000000:%02X:00.0", 0x07 + i * 0x10);
    g->memory = 85899345920ULL;
    g->arch = 7;
    g->brand = 14;
    g->cc_major = 8;
    g->cc_minor = 0;
    g->mig_capable = 1;
    g->mig_toggle = 1;
    g->supported_events = EVENT_XID | EVENT_DBE | EVENT_SBE;
  }
}

static void apply(const char *key, const char *value) {
  if (strcmp(key, "gpus") == 0) {
    ngpus = (unsigned int)atoi(value);
    if (ngpus > MAX_GPUS) {
      ngpus = MAX_GPUS;
    }
  } else if (strcmp(key, "driver_version") == 0) {
    copy_str(driver_version, sizeof(driver_version), value);
  } else if (strcmp(key, "cuda_version") == 0) {
    cuda_version = atoi(value);
  } else if (strcmp(key, "init_error") == 0) {
    init_error = atoi(value);
  } else if (strcmp(key, "proc_root") == 0) {
    copy_str(proc_root, sizeof(proc_root), value);
  } else if (strcmp(key, "events") == 0) {
    parse_events(value);
  } else if (strncmp(key, "fail.", 5) == 0) {
    add_fail(global_fails, &nglobal_fails, key + 5, value);
  } else if (strncmp(key, "gpu.", 4) == 0) {
    char *rest = NULL;
    unsigned long idx = strtoul(key + 4, &rest, 10);
    if (rest == NULL || *rest != '.' || idx >= MAX_GPUS) {
      fprintf(stderr, "fake-nvml: bad key '%s'\n", key);
      return;
    }
    struct gpu *g = &gpus[idx];
    const char *k = rest + 1;
    if (strcmp(k, "name") == 0) {
      copy_str(g->name, sizeof(g->name), value);
    } else if (strcmp(k, "uuid") == 0) {
      copy_str(g->uuid, sizeof(g->uuid), value);
    } else if (strcmp(k, "busid") == 0) {
      copy_str(g->busid, sizeof(g->busid), value);
    } else if (strcmp(k, "minor") == 0) {
      g->minor = (unsigned int)atoi(value);
    } else if (strcmp(k, "memory") == 0) {
      g->memory = strtoull(value, NULL, 10);
    } else if (strcmp(k, "arch") == 0) {
      g->arch = (unsigned int)atoi(value);
    } else if (strcmp(k, "brand") == 0) {
      g->brand = (unsigned int)atoi(value);
    } else if (strcmp(k, "cc") == 0) {
      sscanf(value, "%d.%d", &g->cc_major, &g->cc_minor);
    } else if (strcmp(k, "mig_capable") == 0) {
      g->mig_capable = atoi(value);
    } else if (strcmp(k, "mig") == 0) {
      g->mig_current = g->mig_pending = atoi(value);
    } else if (strcmp(k, "mig_toggle") == 0) {
      g->mig_toggle = atoi(value);
    } else if (strcmp(k, "instances") == 0) {
      parse_instances(g, value);
    } else if (strcmp(k, "events") == 0) {
      g->supported_events = strtoull(value, NULL, 0);
    } else if (strcmp(k, "lost") == 0) {
      g->lost = atoi(value);
    } else if (strncmp(k, "fail.", 5) == 0) {
      add_fail(g->fails, &g->nfails, k + 5, value);
    } else {
      fprintf(stderr, "fake-nvml: unknown key '%s'\n", key);
    }
  } else {
    fprintf(stderr, "fake-nvml: unknown key '%s'\n", key);
  }
}

static void load_config(void) {
  set_defaults();
  const char *path = config_path[0] ? config_path : getenv("FAKE_NVML_CONFIG");
  if (path == NULL || path[0] == 0) {
    return;
  }
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, "fake-nvml: cannot read %s: %s\n", path, strerror(errno));
    return;
  }
  char line[4096];
  while (fgets(line, sizeof(line), f) != NULL) {
    line[strcspn(line, "\r\n")] = 0;
    if (line[0] == '#' || line[0] == 0) {
      continue;
    }
    char *eq = strchr(line, '=');
    if (eq == NULL) {
      continue;
    }
    *eq = 0;
    apply(line, eq + 1);
  }
  fclose(f);
  for (unsigned int i = 0; i < ngpus; i++) {
    for (int j = 0; j < MAX_GI; j++) {
      if (gpus[i].gi[j].used) {
        publish_caps(&gpus[i].gi[j]);
      }
    }
  }
}

static struct gpu *as_gpu(void *h) {
  struct gpu *g = (struct gpu *)h;
  if (g == NULL || g < gpus || g >= gpus + ngpus || g->kind != KIND_GPU) {
    return NULL;
  }
  return g;
}

static struct mig *as_mig(void *h) {
  for (unsigned int i = 0; i < ngpus; i++) {
    struct gpu *g = &gpus[i];
    if ((struct mig *)h >= g->mig && (struct mig *)h < g->mig + g->mig_count) {
      return (struct mig *)h;
    }
  }
  return NULL;
}

static struct gi *as_gi(void *h) {
  for (unsigned int i = 0; i < ngpus; i++) {
    struct gi *gi = (struct gi *)h;
    if (gi >= gpus[i].gi && gi < gpus[i].gi + MAX_GI && gi->used) {
      return gi;
    }
  }
  return NULL;
}

static struct ci *as_ci(void *h) {
  for (unsigned int i = 0; i < ngpus; i++) {
    for (int j = 0; j < MAX_GI; j++) {
      struct ci *ci = (struct ci *)h;
      if (ci >= gpus[i].gi[j].ci && ci < gpus[i].gi[j].ci + MAX_CI && ci->used) {
        return ci;
      }
    }
  }
  return NULL;
}

/* Either kind of device handle: the GPU it belongs to. */
static struct gpu *owner(void *h) {
  struct gpu *g = as_gpu(h);
  if (g != NULL) {
    return g;
  }
  struct mig *m = as_mig(h);
  return m == NULL ? NULL : m->gpu;
}

#define ENTER(fn, gpu_ptr)                 \
  pthread_mutex_lock(&lock);               \
  int rc_ = NVML_SUCCESS;                  \
  if (init_count == 0) {                   \
    rc_ = NVML_ERROR_UNINITIALIZED;        \
  } else {                                 \
    rc_ = fail_code(fn, (gpu_ptr));        \
  }                                        \
  if (rc_ != NVML_SUCCESS) {               \
    pthread_mutex_unlock(&lock);           \
    return rc_;                            \
  }

#define LEAVE(rc)              \
  do {                         \
    int r_ = (rc);             \
    pthread_mutex_unlock(&lock); \
    return r_;                 \
  } while (0)

/* ---- init / system ---- */

static nvmlReturn_t do_init(void) {
  pthread_mutex_lock(&lock);
  if (init_count == 0) {
    load_config();
    if (init_error != 0) {
      int rc = init_error;
      pthread_mutex_unlock(&lock);
      return rc;
    }
  }
  init_count++;
  pthread_mutex_unlock(&lock);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit_v2(void) { return do_init(); }

#ifndef FAKE_NVML_LEGACY
nvmlReturn_t nvmlInitWithFlags(unsigned int flags) {
  (void)flags;
  return do_init();
}
#endif

nvmlReturn_t nvmlShutdown(void) {
  pthread_mutex_lock(&lock);
  if (init_count == 0) {
    pthread_mutex_unlock(&lock);
    return NVML_ERROR_UNINITIALIZED;
  }
  init_count--;
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&lock);
  return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS:
      return "Success";
    case NVML_ERROR_UNINITIALIZED:
      return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
      return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED:
      return "Not Supported";
    case NVML_ERROR_NOT_FOUND:
      return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE:
      return "Insufficient Size";
    case NVML_ERROR_TIMEOUT:
      return "Timeout";
    case NVML_ERROR_GPU_IS_LOST:
      return "GPU is lost";
    default:
      return "Unknown Error";
  }
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
  ENTER("nvmlSystemGetDriverVersion", NULL);
  LEAVE(str_out(driver_version, version, length));
}

static nvmlReturn_t cuda_version_out(const char *fn, int *v) {
  ENTER(fn, NULL);
  if (v == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  *v = cuda_version;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) { return cuda_version_out("nvmlSystemGetCudaDriverVersion", v); }

#ifndef FAKE_NVML_LEGACY
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) {
  return cuda_version_out("nvmlSystemGetCudaDriverVersion_v2", v);
}
#endif

/* ---- devices ---- */

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
  ENTER("nvmlDeviceGetCount_v2", NULL);
  if (count == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  *count = ngpus;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device) {
  ENTER("nvmlDeviceGetHandleByIndex_v2", index < ngpus ? &gpus[index] : NULL);
  if (index >= ngpus || device == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  *device = &gpus[index];
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetMinorNumber(void *device, unsigned int *minor) {
  struct gpu *g = owner(device);
  ENTER("nvmlDeviceGetMinorNumber", g);
  if (g == NULL || minor == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  *minor = g->minor;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetUUID(void *device, char *uuid, unsigned int length) {
  struct gpu *g = owner(device);
  ENTER("nvmlDeviceGetUUID", g);
  if (g == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  struct mig *m = as_mig(device);
  LEAVE(str_out(m != NULL ? m->uuid : g->uuid, uuid, length));
}

nvmlReturn_t nvmlDeviceGetName(void *device, char *name, unsigned int length) {
  struct gpu *g = owner(device);
  ENTER("nvmlDeviceGetName", g);
  if (g == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  LEAVE(str_out(g->name, name, length));
}

nvmlReturn_t nvmlDeviceGetBrand(void *device, unsigned int *type) {
  struct gpu *g = owner(device);
  ENTER("nvmlDeviceGetBrand", g);
  if (g == NULL || type == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  *type = g->brand;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetArchitecture(void *device, unsigned int *arch) {
  struct gpu *g = owner(device);
  ENTER("nvmlDeviceGetArchitecture", g);
  if (g == NULL || arch == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  *arch = g->arch;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(void *device, int *major, int *minor) {
  struct gpu *g = owner(device);
  ENTER("nvmlDeviceGetCudaComputeCapability", g);
  if (g == NULL || major == NULL || minor == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  *major = g->cc_major;
  *minor = g->cc_minor;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(void *device, nvmlMemory_t *memory) {
  struct gpu *g = owner(device);
  ENTER("nvmlDeviceGetMemoryInfo", g);
  if (g == NULL || memory == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  memory->total = g->memory;
  memory->used = 1ULL << 20;
  memory->free = g->memory - memory->used;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(void *device, nvmlPciInfo_t *pci) {
  struct gpu *g = owner(device);
  ENTER("nvmlDeviceGetPciInfo_v3", g);
  if (g == NULL || pci == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  memset(pci, 0, sizeof(*pci));
  unsigned int domain = 0, bus = 0, dev = 0;
  sscanf(g->busid, "%x:%x:%x", &domain, &bus, &dev);
  snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.0", domain, bus, dev);
  pci->domain = domain;
  pci->bus = bus;
  pci->device = dev;
  pci->pciDeviceId = 0x20b210de;
  pci->pciSubSystemId = 0x147f10de;
  copy_str(pci->busId, sizeof(pci->busId), g->busid);
  LEAVE(NVML_SUCCESS);
}

/* ---- MIG ---- */

nvmlReturn_t nvmlDeviceGetMigMode(void *device, unsigned int *current, unsigned int *pending) {
  struct gpu *g = as_gpu(device);
  ENTER("nvmlDeviceGetMigMode", g);
  if (g == NULL || current == NULL || pending == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  if (!g->mig_capable) {
    LEAVE(NVML_ERROR_NOT_SUPPORTED);
  }
  *current = (unsigned int)g->mig_current;
  *pending = (unsigned int)g->mig_pending;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceSetMigMode(void *device, unsigned int mode, nvmlReturn_t *activation) {
  struct gpu *g = as_gpu(device);
  ENTER("nvmlDeviceSetMigMode", g);
  if (g == NULL || activation == NULL || mode > 1) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  if (!g->mig_capable) {
    LEAVE(NVML_ERROR_NOT_SUPPORTED);
  }
  if (mode == 0) {
    for (int i = 0; i < MAX_GI; i++) {
      if (g->gi[i].used) {
        LEAVE(NVML_ERROR_IN_USE);
      }
    }
  }
  g->mig_pending = (int)mode;
  if (g->mig_toggle) {
    g->mig_current = (int)mode;
    *activation = NVML_SUCCESS;
  } else {
    *activation = NVML_ERROR_RESET_REQUIRED;
  }
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(void *device, unsigned int *count) {
  struct gpu *g = as_gpu(device);
  ENTER("nvmlDeviceGetMaxMigDeviceCount", g);
  if (g == NULL || count == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  if (!g->mig_capable) {
    LEAVE(NVML_ERROR_NOT_SUPPORTED);
  }
  *count = 7;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(void *device, unsigned int index, void **mig) {
  struct gpu *g = as_gpu(device);
  ENTER("nvmlDeviceGetMigDeviceHandleByIndex", g);
  if (g == NULL || mig == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  if (!g->mig_current) {
    LEAVE(NVML_ERROR_NOT_SUPPORTED);
  }
  if (index >= g->mig_count) {
    LEAVE(NVML_ERROR_NOT_FOUND);
  }
  *mig = &g->mig[index];
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(void *device, unsigned int *id) {
  struct mig *m = as_mig(device);
  ENTER("nvmlDeviceGetGpuInstanceId", m == NULL ? NULL : m->gpu);
  if (m == NULL || id == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  *id = m->gi->id;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(void *device, unsigned int *id) {
  struct mig *m = as_mig(device);
  ENTER("nvmlDeviceGetComputeInstanceId", m == NULL ? NULL : m->gpu);
  if (m == NULL || id == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  *id = m->ci->id;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(void *device, unsigned int profile,
                                                  nvmlGpuInstanceProfileInfo_v2_t *info) {
  struct gpu *g = as_gpu(device);
  ENTER("nvmlDeviceGetGpuInstanceProfileInfoV", g);
  if (g == NULL || info == NULL || profile >= GI_PROFILE_COUNT) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  if (info->version != GI_PROFILE_INFO_V2_VERSION) {
    LEAVE(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
  }
  const struct gi_profile *p = &GI_PROFILES[profile];
  if (!g->mig_capable || !p->supported) {
    LEAVE(NVML_ERROR_NOT_SUPPORTED);
  }
  info->id = p->id;
  info->isP2pSupported = 0;
  info->sliceCount = p->slices;
  info->instanceCount = p->instances;
  info->multiprocessorCount = p->sms;
  info->copyEngineCount = p->ce;
  info->decoderCount = p->dec;
  info->encoderCount = p->enc;
  info->jpegCount = p->jpeg;
  info->ofaCount = p->ofa;
  info->memorySizeMB = p->mem_mb;
  copy_str(info->name, sizeof(info->name), p->name);
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements_v2(void *device, unsigned int profileId,
                                                           nvmlGpuInstancePlacement_t *placements,
                                                           unsigned int *count) {
  struct gpu *g = as_gpu(device);
  ENTER("nvmlDeviceGetGpuInstancePossiblePlacements_v2", g);
  if (g == NULL || count == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  for (unsigned int i = 0; i < GI_PROFILE_COUNT; i++) {
    const struct gi_profile *p = &GI_PROFILES[i];
    if (p->supported && p->id == profileId) {
      if (placements == NULL) {
        *count = p->nplacements;
        LEAVE(NVML_SUCCESS);
      }
      if (*count < p->nplacements) {
        *count = p->nplacements;
        LEAVE(NVML_ERROR_INSUFFICIENT_SIZE);
      }
      for (unsigned int k = 0; k < p->nplacements; k++) {
        placements[k].start = p->starts[k];
        placements[k].size = p->size;
      }
      *count = p->nplacements;
      LEAVE(NVML_SUCCESS);
    }
  }
  LEAVE(NVML_ERROR_INVALID_ARGUMENT);
}

static int profile_index_of_id(unsigned int profileId) {
  for (unsigned int i = 0; i < GI_PROFILE_COUNT; i++) {
    if (GI_PROFILES[i].supported && GI_PROFILES[i].id == profileId) {
      return (int)i;
    }
  }
  return -1;
}

nvmlReturn_t nvmlDeviceCreateGpuInstanceWithPlacement(void *device, unsigned int profileId,
                                                      const nvmlGpuInstancePlacement_t *placement, void **gpuInstance) {
  struct gpu *g = as_gpu(device);
  ENTER("nvmlDeviceCreateGpuInstanceWithPlacement", g);
  int idx = profile_index_of_id(profileId);
  if (g == NULL || placement == NULL || gpuInstance == NULL || idx < 0) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  if (!g->mig_current) {
    LEAVE(NVML_ERROR_NOT_SUPPORTED);
  }
  if (placement->size != GI_PROFILES[idx].size) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  struct gi *gi = new_gi(g, (unsigned int)idx, placement->start);
  if (gi == NULL) {
    LEAVE(NVML_ERROR_INSUFFICIENT_RESOURCES);
  }
  publish_caps(gi);
  rebuild_migs(g);
  *gpuInstance = gi;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlGpuInstanceDestroy(void *gpuInstance) {
  struct gi *gi = as_gi(gpuInstance);
  ENTER("nvmlGpuInstanceDestroy", gi == NULL ? NULL : gi->gpu);
  if (gi == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  for (int c = 0; c < MAX_CI; c++) {
    if (gi->ci[c].used) {
      LEAVE(NVML_ERROR_IN_USE);
    }
  }
  remove_gi_caps(gi);
  gi->used = 0;
  rebuild_migs(gi->gpu);
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGpuInstanceById(void *device, unsigned int id, void **gpuInstance) {
  struct gpu *g = as_gpu(device);
  ENTER("nvmlDeviceGetGpuInstanceById", g);
  if (g == NULL || gpuInstance == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  if (!g->mig_current) {
    LEAVE(NVML_ERROR_NOT_SUPPORTED);
  }
  for (int i = 0; i < MAX_GI; i++) {
    if (g->gi[i].used && g->gi[i].id == id) {
      *gpuInstance = &g->gi[i];
      LEAVE(NVML_SUCCESS);
    }
  }
  LEAVE(NVML_ERROR_NOT_FOUND);
}

nvmlReturn_t nvmlGpuInstanceGetInfo(void *gpuInstance, nvmlGpuInstanceInfo_t *info) {
  struct gi *gi = as_gi(gpuInstance);
  ENTER("nvmlGpuInstanceGetInfo", gi == NULL ? NULL : gi->gpu);
  if (gi == NULL || info == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  info->device = gi->gpu;
  info->id = gi->id;
  info->profileId = GI_PROFILES[gi->profile].id;
  info->placement.start = gi->start;
  info->placement.size = gi->size;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(void *gpuInstance, unsigned int profile,
                                                          unsigned int engProfile,
                                                          nvmlComputeInstanceProfileInfo_t *info) {
  struct gi *gi = as_gi(gpuInstance);
  ENTER("nvmlGpuInstanceGetComputeInstanceProfileInfo", gi == NULL ? NULL : gi->gpu);
  if (gi == NULL || info == NULL || engProfile != 0 || profile >= 8) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  const struct gi_profile *p = &GI_PROFILES[gi->profile];
  if (profile >= CI_PROFILE_COUNT || CI_SLICES[profile] > p->slices) {
    LEAVE(NVML_ERROR_NOT_SUPPORTED);
  }
  info->id = profile;
  info->sliceCount = CI_SLICES[profile];
  info->instanceCount = p->slices / CI_SLICES[profile];
  info->multiprocessorCount = 14 * CI_SLICES[profile];
  info->sharedCopyEngineCount = p->ce;
  info->sharedDecoderCount = p->dec;
  info->sharedEncoderCount = p->enc;
  info->sharedJpegCount = p->jpeg;
  info->sharedOfaCount = p->ofa;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlGpuInstanceCreateComputeInstance(void *gpuInstance, unsigned int profileId, void **computeInstance) {
  struct gi *gi = as_gi(gpuInstance);
  ENTER("nvmlGpuInstanceCreateComputeInstance", gi == NULL ? NULL : gi->gpu);
  if (gi == NULL || computeInstance == NULL || profileId >= CI_PROFILE_COUNT) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  struct ci *ci = new_ci(gi, profileId);
  if (ci == NULL) {
    LEAVE(NVML_ERROR_INSUFFICIENT_RESOURCES);
  }
  publish_caps(gi);
  rebuild_migs(gi->gpu);
  *computeInstance = ci;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceById(void *gpuInstance, unsigned int id, void **computeInstance) {
  struct gi *gi = as_gi(gpuInstance);
  ENTER("nvmlGpuInstanceGetComputeInstanceById", gi == NULL ? NULL : gi->gpu);
  if (gi == NULL || computeInstance == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  for (int c = 0; c < MAX_CI; c++) {
    if (gi->ci[c].used && gi->ci[c].id == id) {
      *computeInstance = &gi->ci[c];
      LEAVE(NVML_SUCCESS);
    }
  }
  LEAVE(NVML_ERROR_NOT_FOUND);
}

nvmlReturn_t nvmlComputeInstanceGetInfo_v2(void *computeInstance, nvmlComputeInstanceInfo_t *info) {
  struct ci *ci = as_ci(computeInstance);
  ENTER("nvmlComputeInstanceGetInfo_v2", ci == NULL ? NULL : ci->gi->gpu);
  if (ci == NULL || info == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  info->device = ci->gi->gpu;
  info->gpuInstance = ci->gi;
  info->id = ci->id;
  info->profileId = ci->profile;
  info->placement.start = ci->start;
  info->placement.size = ci->size;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlComputeInstanceDestroy(void *computeInstance) {
  struct ci *ci = as_ci(computeInstance);
  ENTER("nvmlComputeInstanceDestroy", ci == NULL ? NULL : ci->gi->gpu);
  if (ci == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  remove_ci_caps(ci);
  ci->used = 0;
  rebuild_migs(ci->gi->gpu);
  LEAVE(NVML_SUCCESS);
}

/* ---- events ---- */

nvmlReturn_t nvmlEventSetCreate(void **set) {
  ENTER("nvmlEventSetCreate", NULL);
  if (set == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  for (int i = 0; i < MAX_SETS; i++) {
    if (!sets[i].used) {
      memset(&sets[i], 0, sizeof(sets[i]));
      sets[i].used = 1;
      *set = &sets[i];
      LEAVE(NVML_SUCCESS);
    }
  }
  LEAVE(NVML_ERROR_INSUFFICIENT_RESOURCES);
}

static struct event_set *as_set(void *h) {
  struct event_set *s = (struct event_set *)h;
  return s >= sets && s < sets + MAX_SETS && s->used ? s : NULL;
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(void *device, unsigned long long *types) {
  struct gpu *g = as_gpu(device);
  ENTER("nvmlDeviceGetSupportedEventTypes", g);
  if (g == NULL || types == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  *types = g->supported_events;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceRegisterEvents(void *device, unsigned long long types, void *set) {
  struct gpu *g = as_gpu(device);
  ENTER("nvmlDeviceRegisterEvents", g);
  struct event_set *s = as_set(set);
  if (g == NULL || s == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  if ((types & ~g->supported_events) != 0) {
    LEAVE(NVML_ERROR_NOT_SUPPORTED);
  }
  s->mask[g->index] |= types;
  LEAVE(NVML_SUCCESS);
}

nvmlReturn_t nvmlEventSetWait_v2(void *set, nvmlEventData_t *data, unsigned int timeoutms) {
  ENTER("nvmlEventSetWait_v2", NULL);
  struct event_set *s = as_set(set);
  if (s == NULL || data == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += timeoutms / 1000;
  deadline.tv_nsec += (long)(timeoutms % 1000) * 1000000L;
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec++;
    deadline.tv_nsec -= 1000000000L;
  }
  for (;;) {
    if (init_count == 0 || !s->used) {
      LEAVE(NVML_ERROR_UNINITIALIZED);
    }
    for (unsigned int i = 0; i < ngpus; i++) {
      if (s->mask[i] != 0 && gpus[i].lost) {
        LEAVE(NVML_ERROR_GPU_IS_LOST);
      }
    }
    for (unsigned int e = 0; e < nevents; e++) {
      struct event *ev = &events[e];
      if (ev->gpu < ngpus && (s->mask[ev->gpu] & ev->type) != 0) {
        data->device = &gpus[ev->gpu];
        data->eventType = ev->type;
        data->eventData = ev->data;
        data->gpuInstanceId = ev->gi;
        data->computeInstanceId = ev->ci;
        memmove(&events[e], &events[e + 1], (nevents - e - 1) * sizeof(events[0]));
        nevents--;
        LEAVE(NVML_SUCCESS);
      }
    }
    if (pthread_cond_timedwait(&cond, &lock, &deadline) == ETIMEDOUT) {
      LEAVE(NVML_ERROR_TIMEOUT);
    }
  }
}

nvmlReturn_t nvmlEventSetFree(void *set) {
  ENTER("nvmlEventSetFree", NULL);
  struct event_set *s = as_set(set);
  if (s == NULL) {
    LEAVE(NVML_ERROR_INVALID_ARGUMENT);
  }
  s->used = 0;
  pthread_cond_broadcast(&cond);
  LEAVE(NVML_SUCCESS);
}

/* ---- test-only controls ---- */

void fake_nvml_set_config(const char *path) {
  pthread_mutex_lock(&lock);
  copy_str(config_path, sizeof(config_path), path == NULL ? "" : path);
  pthread_mutex_unlock(&lock);
}

int fake_nvml_inject_event(unsigned int gpu, unsigned long long type, unsigned long long data, unsigned int gi,
                           unsigned int ci) {
  pthread_mutex_lock(&lock);
  int ok = gpu < ngpus && nevents < MAX_EVENTS;
  if (ok) {
    push_event(gpu, type, data, gi, ci);
    pthread_cond_broadcast(&cond);
  }
  pthread_mutex_unlock(&lock);
  return ok ? 0 : -1;
}

void fake_nvml_set_lost(unsigned int gpu, int lost) {
  pthread_mutex_lock(&lock);
  if (gpu < MAX_GPUS) {
    gpus[gpu].lost = lost;
  }
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&lock);
}

int fake_nvml_init_count(void) {
  pthread_mutex_lock(&lock);
  int n = init_count;
  pthread_mutex_unlock(&lock);
  return n;
}
