#!/bin/bash
# deploy/k8s/imapstress-job.yaml without a cluster.
#
# `kubectl apply --dry-run=client` was the check asked for, but it cannot
# run without an API server: it downloads the OpenAPI schema and the API
# group list from the server first (both Debian 12's kubernetes-client 1.20
# and a newer kubectl fail with "connection refused" on localhost:8080, with
# and without --validate=false).  With KUBECTL_DRY_RUN=1 in the environment
# this test runs it against your current kubectl context (opt-in: a test
# must not talk to anything but loopback unless asked); it always checks
# offline:
#   - yamllint (Debian's) on the file;
#   - every field of every document against the Kubernetes API models of
#     Debian's python3-kubernetes (unknown fields, wrong types and missing
#     required fields are errors, as the API server's validation would say);
#   - what the recipe promises: an Indexed Job with completions =
#     parallelism = the SHARDS value = --shards, results written as
#     shard-%i.res to the shared volume, which the merge Job mounts and
#     waits for.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
MANIFEST=$ROOT/deploy/k8s/imapstress-job.yaml
need_cmd "${PYTHON:-python3}" yamllint
"$PYTHON" -c 'import kubernetes.client, yaml' 2>/dev/null ||
	skip "python3-kubernetes is not installed (scripts/deps)"

if [ "${KUBECTL_DRY_RUN:-}" = 1 ]; then
	run_with_timeout 60 kubectl apply --dry-run=client -f "$MANIFEST" >"$TEST_TMP/kubectl.out" 2>&1 ||
		fail "kubectl apply --dry-run=client: $(cat "$TEST_TMP/kubectl.out")"
	note "kubectl apply --dry-run=client: $(tr '\n' ';' <"$TEST_TMP/kubectl.out")"
else
	note "kubectl apply --dry-run=client needs a cluster (KUBECTL_DRY_RUN=1 to use yours); checking offline"
fi

yamllint -d '{extends: relaxed, rules: {line-length: {max: 100}}}' "$MANIFEST" ||
	fail "yamllint"

"$PYTHON" - "$MANIFEST" <<'EOF' || fail "the manifest does not check out"
import re, sys
import yaml
import kubernetes.client as k

docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d is not None]
MODELS = {("v1", "ConfigMap"): "V1ConfigMap",
          ("v1", "PersistentVolumeClaim"): "V1PersistentVolumeClaim",
          ("batch/v1", "Job"): "V1Job"}
errors = []

def walk(obj, typ, where):
    if typ.startswith("list["):
        if not isinstance(obj, list):
            errors.append("%s: expected a list" % where)
            return
        for i, x in enumerate(obj):
            walk(x, typ[5:-1], "%s[%d]" % (where, i))
    elif typ.startswith("dict("):
        if not isinstance(obj, dict):
            errors.append("%s: expected a map" % where)
            return
        vt = typ[typ.index(",") + 1:-1].strip()
        for key, v in obj.items():
            walk(v, vt, "%s.%s" % (where, key))
    elif typ == "str":
        if not isinstance(obj, str):
            errors.append("%s: expected a string, got %r" % (where, obj))
    elif typ == "int":
        if not isinstance(obj, int) or isinstance(obj, bool):
            errors.append("%s: expected an integer, got %r" % (where, obj))
    elif typ == "bool":
        if not isinstance(obj, bool):
            errors.append("%s: expected true/false, got %r" % (where, obj))
    elif typ in ("object", "datetime"):
        pass
    else:
        cls = getattr(k, typ)
        if not isinstance(obj, dict):
            errors.append("%s: expected a %s object" % (where, typ))
            return
        by_json = {v: a for a, v in cls.attribute_map.items()}
        for key, v in obj.items():
            if key not in by_json:
                errors.append("%s: unknown field %r in %s" % (where, key, typ))
                continue
            walk(v, cls.openapi_types[by_json[key]], "%s.%s" % (where, key))

api = k.ApiClient()
for d in docs:
    model = MODELS.get((d.get("apiVersion"), d.get("kind")))
    name = "%s/%s" % (d.get("kind"), d.get("metadata", {}).get("name"))
    if model is None:
        errors.append("%s: unexpected apiVersion/kind" % name)
        continue
    walk(d, model, name)
    try:  # required fields: the models refuse None where the API does
        api._ApiClient__deserialize(d, model)
    except ValueError as e:
        errors.append("%s: %s" % (name, e))

by = {(d["kind"], d["metadata"]["name"]): d for d in docs}
cm = by[("ConfigMap", "imapstress-run")]["data"]
job = by[("Job", "imapstress")]["spec"]
merge = by[("Job", "imapstress-merge")]["spec"]
shards = int(cm["SHARDS"])
if job.get("completionMode") != "Indexed":
    errors.append("the shard Job is not an Indexed Job")
if not job.get("completions") == job.get("parallelism") == shards:
    errors.append("completions %s, parallelism %s, SHARDS %s: must be equal"
                  % (job.get("completions"), job.get("parallelism"), shards))
c = job["template"]["spec"]["containers"][0]
args = c["args"]
env = {e["name"] for e in c.get("env", [])}
for ref in re.findall(r"\$\((\w+)\)", " ".join(args)):
    if ref not in env:
        errors.append("args use $(%s), which the container's env lacks" % ref)
if args[args.index("--shards") + 1] != "$(SHARDS)":
    errors.append("--shards is not the SHARDS value")
res = args[args.index("--result") + 1]
if not re.fullmatch(r"/results/shard-%i\.res", res):
    errors.append("--result %s: not /results/shard-%%i.res" % res)
for spec, what in ((job, "shard"), (merge, "merge")):
    pod = spec["template"]["spec"]
    if pod.get("restartPolicy") != "Never":
        errors.append("%s Job: restartPolicy must be Never" % what)
    mounts = {m["name"]: m["mountPath"] for m in pod["containers"][0]["volumeMounts"]}
    vols = {v["name"]: v for v in pod["volumes"]}
    if mounts.get("results") != "/results" or \
       vols["results"]["persistentVolumeClaim"]["claimName"] != "imapstress-results":
        errors.append("%s Job does not mount the results claim at /results" % what)
script = merge["template"]["spec"]["containers"][0]["args"][0]
if "imapstress merge" not in script or "/results/shard-$i.res" not in script:
    errors.append("the merge Job does not wait for shard-$i.res and merge")
pvc = by[("PersistentVolumeClaim", "imapstress-results")]["spec"]
if "ReadWriteMany" not in pvc["accessModes"]:
    errors.append("the results claim must be ReadWriteMany")
if errors:
    sys.exit("\n".join(errors))
print("%d documents, %d shards: fields and recipe check out" % (len(docs), shards),
      file=sys.stderr)
EOF
note "ok"
