#!/usr/bin/env python3
"""scripts/perf-summary.py OUTDIR: the medians of a scripts/perf-rounds.sh directory, as Markdown.

Reads the `iwarp bench ... --json` documents named PREFIX<round>-CASE.json (r: quiet, l: with
--background-load 1, m: markers, i: interleaved windows, j: both, control/tree: the two builds of --control) and the text of
`iwarp nfs bench` (nfs-vV-I.txt). For each case: median and range over the rounds of RDMA MB/s,
both TCP baselines, RDMA / raw TCP, RDMA / TCP with copy and the event loops' CPU per octet of
RDMA against raw TCP (`--json`'s ratio, ratio_copy and cpu.ratio), each side's event-loop CPU per
octet and the ratio of their medians; for latency the typical round trip and its ratio. The median
of the per-round CPU ratios pairs the two sides of each run; the ratio of the medians takes each
side at its typical cost over the rounds, which moves less when the machine's memory speed changes
between the phases of one run (docs/performance-log.md, tenth session). Runs with `--interleave`
windows get a second table: the windows of all rounds pooled, the median of each window's
ratios (RDMA / raw, / with copy, CPU per octet against each), the three measured within about a
second of one another.

Only runs that finished and verified count: a document that cannot be read, or whose exit_status
is not 0, whose verification.verified is not true, that has a partial row, or a latency row
without its TCP figure, is left out and named, with the reason, under "Skipped" (and counted on
stderr). A column's figures are over the rounds that have it: "rounds" counts those with both RDMA's
and raw TCP's figure (latency: every round counted), a column with fewer says how many in brackets
([n]), and the ratio of the medians takes both sides over the same rounds.
"""
import glob
import json
import os
import re
import statistics
import sys

PREFIXES = {'r': 'quiet', 'l': 'loaded (--background-load 1)', 'm': 'markers',
            'i': 'interleaved (--interleave)', 'j': 'loaded and interleaved (--background-load 1 --interleave)',
            'control': 'control: --control JAR', 'tree': "control: this tree's build"}
NAME = re.compile(r'^(r|l|m|i|j|control|tree)(\d+)-(.+)\.json$')


def spread(values, fmt='%.2f', rounds=None):
    """'median (min-max)' of the values that exist; '-' when there are none. With rounds, a
    column that has fewer values than that says how many it has: ' [n]'."""
    xs = [x for x in values if x is not None]
    if not xs:
        return '-'
    if len(xs) == 1:
        text = fmt % xs[0]
    else:
        text = (fmt + ' (' + fmt + '–' + fmt + ')') % (statistics.median(xs), min(xs), max(xs))
    return text + (' [%d]' % len(xs) if rounds is not None and len(xs) < rounds else '')


def ratio_of_medians(numerators, denominators):
    """median(numerators) / median(denominators) over the rounds that have both (the lists are
    per round, in the same order); '-' if none has both."""
    pairs = [(x, y) for x, y in zip(numerators, denominators) if x is not None and y is not None]
    if not pairs:
        return '-'
    den = statistics.median(y for _, y in pairs)
    if den == 0:
        return '-'
    return '%.2f' % (statistics.median(x for x, _ in pairs) / den)


def rejected(doc):
    """Why a run's document does not count (it failed, did not verify, or is incomplete), or None."""
    if doc.get('exit_status') != 0:
        return 'exit status %s' % doc.get('exit_status')
    if (doc.get('verification') or {}).get('verified') is not True:
        return 'not verified'
    results = doc['results']
    if not results:
        return 'no rows'
    if any(r.get('partial') for r in results):
        return 'a partial row'
    if doc.get('kind') == 'latency' and any(not r.get('tcp') for r in results):
        return 'a latency row without TCP'
    return None


def bandwidth_row(result):
    cpu = result.get('cpu') or {}
    copy = result.get('tcp_copy') or {}
    tcp = result.get('tcp') or {}
    return {
        'rdma': result['rdma']['bw_average_mb_per_sec'],
        'raw': tcp.get('bw_average_mb_per_sec'),
        'copy': copy.get('bw_average_mb_per_sec'),
        'ratio': result.get('ratio'),
        'ratio_copy': result.get('ratio_copy'),
        'cpu': cpu.get('ratio'),
        'tcp_ns': (cpu.get('tcp') or {}).get('event_loop_ns_per_octet'),
        'rdma_ns': (cpu.get('rdma') or {}).get('event_loop_ns_per_octet'),
        'windows': [{'ratio': w.get('ratio'), 'ratio_copy': w.get('ratio_copy'),
                     'cpu': (w.get('cpu') or {}).get('ratio'), 'cpu_copy': (w.get('cpu') or {}).get('ratio_copy')}
                    for w in result.get('windows') or []],
    }


def latency_row(result):
    return {'ratio': result['ratio'], 'rdma_us': result['rdma']['t_typical_usec'],
            'tcp_us': result['tcp']['t_typical_usec']}


def read_runs(directory):
    """{(prefix, case): [row per round]} and [(name, why)] of the documents left out."""
    runs, skipped = {}, []
    for path in sorted(glob.glob(os.path.join(directory, '*.json'))):
        name = os.path.basename(path)
        m = NAME.match(name)
        if not m:
            continue
        try:
            with open(path) as f:
                doc = json.load(f)
            why = rejected(doc)
            rows = [] if why else [latency_row(r) if doc.get('kind') == 'latency' else bandwidth_row(r)
                                   for r in doc['results']]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            why = 'not readable'
        if why is not None:
            skipped.append((name, why))
            continue
        runs.setdefault((m.group(1), m.group(3)), []).extend(rows)
    return runs, skipped


def present(rows, *keys):
    """How many of the rows have every one of these figures."""
    return sum(1 for r in rows if all(r[k] is not None for k in keys))


def nfs_ratios(directory):
    """{(version, operation): [(rdma MB/s, tcp MB/s, ratio)]} from the nfs bench tables."""
    table = re.compile(r'^\s*(WRITE|READ)\s+\d+\s+\d+\s+([\d.]+)\s+[\d.]+\s+([\d.]+)\s+[\d.]+\s+([\d.]+)\s*$')
    out = {}
    for path in sorted(glob.glob(os.path.join(directory, 'nfs-v*-*.txt'))):
        version = re.match(r'nfs-v(.+)-\d+\.txt$', os.path.basename(path)).group(1)
        with open(path) as f:
            for line in f:
                m = table.match(line)
                if m:
                    out.setdefault((version, m.group(1)), []).append(
                        (float(m.group(2)), float(m.group(3)), float(m.group(4))))
    return out


def main(directory):
    runs, skipped = read_runs(directory)
    print('# perf-rounds summary: ' + os.path.abspath(directory))
    print()
    print('Medians over rounds, range in parentheses, [n]: a figure only n of the rounds have; MB = 2^20 octets'
          ' per second; ratios RDMA / TCP. Only runs that finished and verified count (see "Skipped").')
    for prefix, title in PREFIXES.items():
        cases = sorted(k[1] for k in runs if k[0] == prefix)
        if not cases:
            continue
        print()
        print('## ' + title)
        print()
        bandwidth = [c for c in cases if not c.startswith('lat-')]
        if bandwidth:
            print('| case | rounds | RDMA MB/s | TCP raw | TCP with copy | RDMA / raw | RDMA / with copy '
                  '| CPU per octet vs raw | RDMA loops ns/octet | TCP loops ns/octet | ratio of the medians |')
            print('|---|---|---|---|---|---|---|---|---|---|---|')
            for case in bandwidth:
                rows = runs[(prefix, case)]
                n = present(rows, 'rdma', 'raw')
                col = lambda k, fmt='%.2f': spread([r[k] for r in rows], fmt, n)
                print('| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                    case, n, col('rdma', '%.0f'), col('raw', '%.0f'), col('copy', '%.0f'), col('ratio'),
                    col('ratio_copy'), col('cpu'), col('rdma_ns'), col('tcp_ns'),
                    ratio_of_medians([r['rdma_ns'] for r in rows], [r['tcp_ns'] for r in rows])))
        windowed = [c for c in bandwidth if any(r['windows'] for r in runs[(prefix, c)])]
        if windowed:
            print()
            print('Windows of all rounds pooled: median (range) of each window\'s ratio.')
            print()
            print('| case | windows | RDMA / raw | RDMA / with copy | CPU per octet vs raw | CPU per octet vs with copy |')
            print('|---|---|---|---|---|---|')
            for case in windowed:
                windows = [w for r in runs[(prefix, case)] for w in r['windows']]
                n = present(windows, 'ratio')
                col = lambda k: spread([w[k] for w in windows], '%.2f', n)
                print('| %s | %d | %s | %s | %s | %s |' % (
                    case, n, col('ratio'), col('ratio_copy'), col('cpu'), col('cpu_copy')))
        latency = [c for c in cases if c.startswith('lat-')]
        if latency:
            print()
            print('| case | rounds | RDMA typical µs | TCP typical µs | RDMA / TCP |')
            print('|---|---|---|---|---|')
            for case in latency:
                rows = runs[(prefix, case)]
                print('| %s | %d | %s | %s | %s |' % (
                    case, len(rows), spread([r['rdma_us'] for r in rows], '%.1f'),
                    spread([r['tcp_us'] for r in rows], '%.1f'), spread([r['ratio'] for r in rows])))
    nfs = nfs_ratios(directory)
    if nfs:
        print()
        print('## NFS (`nfs bench -s 256m -n 3`), each run')
        print()
        print('| version | operation | RDMA MB/s | TCP MB/s | RDMA / TCP |')
        print('|---|---|---|---|---|')
        for (version, op), values in sorted(nfs.items()):
            print('| %s | %s | %s | %s | %s |' % (
                version, op, ', '.join('%.0f' % v[0] for v in values), ', '.join('%.0f' % v[1] for v in values),
                ', '.join('%.2f' % v[2] for v in values)))
    if skipped:
        print()
        print('## Skipped')
        print()
        print('Runs left out (failed, not verified, or incomplete): '
              + ', '.join('%s (%s)' % s for s in skipped))
        print('perf-summary: %d run(s) left out, named under "Skipped"' % len(skipped), file=sys.stderr)


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: perf-summary.py OUTDIR')
    main(sys.argv[1])
