/*
 * iwarp_peer: the Linux end of iwarp4j's siw interop tests (see docs/siw-interop.md).
 *
 * One rdma_cm connection (librdmacm + libibverbs, so siw when the address is on siw's netdev).
 * The "actor" performs RDMA Write, RDMA Read and Send of the given sizes on the other end's
 * memory; the "target" lends that memory and checks what arrived. Either role can be the
 * connecting (-c) or the listening (-s) end. The two ends agree on each transfer with small
 * Sends, the "rendezvous" (24 octets, big-endian):
 *
 *   offset 0  u8  type    1 REQ, 2 ADV, 3 DONE, 4 RESULT, 5 BYE
 *          1  u8  op      1 write, 2 read, 3 send
 *          2  u16 zero
 *          4  u32 length  octets of the transfer
 *          8  u64 addr    ADV: tagged offset of the target's buffer
 *         16  u32 stag    ADV: its STag
 *         20  u32 status  RESULT: 0 = data verified, else 1 + the first wrong octet's offset
 *
 * Per transfer: actor REQ{op,len} -> target fills its buffer (pattern for read, zeros for
 * write) -> target ADV{addr,stag,len} -> actor works:
 *   write: RDMA Write of len pattern octets, then DONE; the target checks them and the 64
 *          zero octets after them, and answers RESULT;
 *   read:  RDMA Read of len octets, checks them, sends RESULT;
 *   send:  a Send of len pattern octets (into one of the target's posted receives, each as
 *          large as the largest size); the target checks them and answers RESULT.
 * Then BYE from the actor; the actor disconnects. Pattern octet i of a transfer is
 * (i % 251) ^ (len & 0xff) ^ (op << 4): not periodic in pages, different per transfer.
 *
 * -O (actor only): the first write puts len + 1 octets at the advertised address, one past the
 * advertised end; the target is expected to Terminate (DDP tagged base-or-bounds).
 *
 * Output: one line per fact, flushed, for the test to parse:
 *   listening ADDR PORT | connected | result op=write size=N status=ok|mismatch@OFF by=actor|target
 *   wc OP status=STR(N) vendor_err=0xX | cm EVENT status=N | async EVENT | bye | error: TEXT
 * Exit: 0 all verified, 1 a mismatch, 2 no connection (rejected, unreachable), 3 the connection
 * failed during the run (completion error, disconnect), 4 timeout, 64 usage.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

enum { T_REQ = 1, T_ADV = 2, T_DONE = 3, T_RESULT = 4, T_BYE = 5 };
enum { OP_WRITE = 1, OP_READ = 2, OP_SEND = 3 };
enum { EXIT_OK = 0, EXIT_MISMATCH = 1, EXIT_NO_CONNECTION = 2, EXIT_FAILED = 3, EXIT_TIMEOUT = 4,
       EXIT_USAGE = 64 };

#define CTL_LEN 24
#define GUARD 64
#define NRECV 4
#define MAX_SIZES 16
#define MAX_OPS 3

struct ctl {
	uint8_t type, op;
	uint32_t len;
	uint64_t addr;
	uint32_t stag, status;
};

static struct {
	struct rdma_event_channel *cm_ch;
	struct rdma_cm_id *listen_id, *id;
	struct ibv_comp_channel *comp_ch;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	uint8_t *data, *ctl, *recv;   /* data: max + GUARD; ctl: CTL_LEN; recv: NRECV * rsize */
	size_t max, rsize;
	struct ibv_mr *data_mr, *ctl_mr, *recv_mr;
	int timeout_ms;
	int disconnected;
} g;

static const char *op_name(int op)
{
	return op == OP_WRITE ? "write" : op == OP_READ ? "read" : op == OP_SEND ? "send" : "?";
}

static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void die(int code, const char *fmt, ...)
{
	va_list ap;
	printf("error: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (exit %d)\n", code);
	fflush(stdout);
	exit(code);
}

static uint8_t pattern(int op, uint32_t len, size_t i)
{
	return (uint8_t)((i % 251) ^ (len & 0xff) ^ ((unsigned)op << 4));
}

static void fill(uint8_t *p, int op, uint32_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pattern(op, len, i);
}

/* 0 if p holds the pattern (and, if guard, GUARD zero octets after it), else 1 + first bad offset. */
static uint32_t check(const uint8_t *p, int op, uint32_t len, int guard)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != pattern(op, len, i))
			return (uint32_t)i + 1;
	if (guard)
		for (size_t i = len; i < len + GUARD; i++)
			if (p[i] != 0)
				return (uint32_t)i + 1;
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static void nonblocking(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* Reports (and acknowledges) what the CM and the device say on the side. */
static void drain_side_events(void)
{
	struct rdma_cm_event *ev;
	while (rdma_get_cm_event(g.cm_ch, &ev) == 0) {
		say("cm %s status=%d", rdma_event_str(ev->event), ev->status);
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
			g.disconnected = 1;
		rdma_ack_cm_event(ev);
	}
	if (g.id && g.id->verbs) {
		struct ibv_async_event aev;
		while (ibv_get_async_event(g.id->verbs, &aev) == 0) {
			say("async %s", ibv_event_type_str(aev.event_type));
			ibv_ack_async_event(&aev);
		}
	}
}

static const char *wc_op(const struct ibv_wc *wc)
{
	switch (wc->opcode) {
	case IBV_WC_SEND: return "send";
	case IBV_WC_RDMA_WRITE: return "write";
	case IBV_WC_RDMA_READ: return "read";
	case IBV_WC_RECV: return "recv";
	default: return "other";
	}
}

/* The next completion of cq; a failed one is reported and ends the run (exit 3). */
static struct ibv_wc wait_wc(struct ibv_cq *cq)
{
	struct ibv_wc wc;
	long deadline = now_ms() + g.timeout_ms;
	for (;;) {
		int n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			die(EXIT_FAILED, "ibv_poll_cq: %d", n);
		if (n == 0) {
			ibv_req_notify_cq(cq, 0);
			n = ibv_poll_cq(cq, 1, &wc);
		}
		if (n > 0) {
			if (wc.status != IBV_WC_SUCCESS) {
				say("wc %s status=%s(%d) vendor_err=0x%x", wc_op(&wc), ibv_wc_status_str(wc.status),
				    wc.status, wc.vendor_err);
				drain_side_events();
				die(EXIT_FAILED, "a work request failed");
			}
			return wc;
		}
		long left = deadline - now_ms();
		if (left <= 0) {
			drain_side_events();
			die(EXIT_TIMEOUT, "no completion within %d ms", g.timeout_ms);
		}
		struct pollfd fds[3] = {
			{ .fd = g.comp_ch->fd, .events = POLLIN },
			{ .fd = g.cm_ch->fd, .events = POLLIN },
			{ .fd = g.id->verbs->async_fd, .events = POLLIN },
		};
		poll(fds, 3, left > 1000 ? 1000 : (int)left);
		if (fds[0].revents) {
			struct ibv_cq *ev_cq;
			void *ctx;
			if (ibv_get_cq_event(g.comp_ch, &ev_cq, &ctx) == 0)
				ibv_ack_cq_events(ev_cq, 1);
		}
		if (fds[1].revents || fds[2].revents)
			drain_side_events();
	}
}

/* Waits for one CM event (skipping none): returns it, acknowledged, as its type and status. */
static enum rdma_cm_event_type wait_cm(int *status, struct rdma_cm_event *copy)
{
	struct rdma_cm_event *ev;
	long deadline = now_ms() + g.timeout_ms;
	for (;;) {
		if (rdma_get_cm_event(g.cm_ch, &ev) == 0)
			break;
		if (errno != EAGAIN)
			die(EXIT_FAILED, "rdma_get_cm_event: %s", strerror(errno));
		long left = deadline - now_ms();
		if (left <= 0)
			die(EXIT_TIMEOUT, "no CM event within %d ms", g.timeout_ms);
		struct pollfd fd = { .fd = g.cm_ch->fd, .events = POLLIN };
		poll(&fd, 1, (int)left);
	}
	enum rdma_cm_event_type type = ev->event;
	*status = ev->status;
	if (copy)
		*copy = *ev;
	say("cm %s status=%d", rdma_event_str(type), ev->status);
	if (type == RDMA_CM_EVENT_DISCONNECTED)
		g.disconnected = 1;
	rdma_ack_cm_event(ev);
	return type;
}

static void post_recv(int slot)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(g.recv + slot * g.rsize), .length = (uint32_t)g.rsize,
			       .lkey = g.recv_mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)slot, .sg_list = &sge, .num_sge = 1 }, *bad;
	if (ibv_post_recv(g.qp, &wr, &bad))
		die(EXIT_FAILED, "ibv_post_recv: %s", strerror(errno));
}

static void post_send(enum ibv_wr_opcode opcode, void *addr, uint32_t len, uint32_t lkey, uint64_t raddr,
		      uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = { .opcode = opcode, .sg_list = &sge, .num_sge = 1, .send_flags = IBV_SEND_SIGNALED },
			   *bad;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(g.qp, &wr, &bad))
		die(EXIT_FAILED, "ibv_post_send: %s", strerror(errno));
	wait_wc(g.scq);
}

static void send_ctl(const struct ctl *c)
{
	uint8_t *p = g.ctl;
	memset(p, 0, CTL_LEN);
	p[0] = c->type;
	p[1] = c->op;
	uint32_t len = htobe32(c->len), stag = htobe32(c->stag), status = htobe32(c->status);
	uint64_t addr = htobe64(c->addr);
	memcpy(p + 4, &len, 4);
	memcpy(p + 8, &addr, 8);
	memcpy(p + 16, &stag, 4);
	memcpy(p + 20, &status, 4);
	post_send(IBV_WR_SEND, p, CTL_LEN, g.ctl_mr->lkey, 0, 0);
}

/* The next message received: its slot (to repost once read) and, if a control message, decoded. */
static int recv_msg(struct ctl *c, uint32_t *byte_len)
{
	struct ibv_wc wc = wait_wc(g.rcq);
	int slot = (int)wc.wr_id;
	const uint8_t *p = g.recv + slot * g.rsize;
	*byte_len = wc.byte_len;
	memset(c, 0, sizeof(*c));
	if (wc.byte_len == CTL_LEN) {
		uint32_t len, stag, status;
		uint64_t addr;
		c->type = p[0];
		c->op = p[1];
		memcpy(&len, p + 4, 4);
		memcpy(&addr, p + 8, 8);
		memcpy(&stag, p + 16, 4);
		memcpy(&status, p + 20, 4);
		c->len = be32toh(len);
		c->addr = be64toh(addr);
		c->stag = be32toh(stag);
		c->status = be32toh(status);
	}
	return slot;
}

static struct ctl expect(int type)
{
	struct ctl c;
	uint32_t n;
	int slot = recv_msg(&c, &n);
	post_recv(slot);
	if (n != CTL_LEN || c.type != type)
		die(EXIT_FAILED, "expected message type %d, got %u octets of type %d", type, n, c.type);
	return c;
}

static void report(int op, uint32_t len, uint32_t status, const char *by)
{
	if (status == 0)
		say("result op=%s size=%u status=ok by=%s", op_name(op), len, by);
	else
		say("result op=%s size=%u status=mismatch@%u by=%s", op_name(op), len, status - 1, by);
}

static int run_actor(const int *ops, int nops, const uint32_t *sizes, int nsizes, int oob)
{
	int mismatches = 0;
	for (int o = 0; o < nops; o++) {
		for (int s = 0; s < nsizes; s++) {
			int op = ops[o];
			uint32_t len = sizes[s];
			send_ctl(&(struct ctl){ .type = T_REQ, .op = op, .len = len });
			struct ctl adv = expect(T_ADV);
			if (adv.op != op || adv.len != len)
				die(EXIT_FAILED, "ADV for %s %u does not match the request", op_name(adv.op), adv.len);
			uint32_t status;
			if (op == OP_WRITE) {
				uint32_t n = len + (oob ? 1 : 0);
				fill(g.data, op, len);
				g.data[len] = 0xEE;
				if (oob)
					say("oob: writing %u octets into the %u advertised", n, len);
				post_send(IBV_WR_RDMA_WRITE, g.data, n, g.data_mr->lkey, adv.addr, adv.stag);
				send_ctl(&(struct ctl){ .type = T_DONE, .op = op, .len = len });
				status = expect(T_RESULT).status;
				report(op, len, status, "target");
			} else if (op == OP_READ) {
				memset(g.data, 0, len);
				post_send(IBV_WR_RDMA_READ, g.data, len, g.data_mr->lkey, adv.addr, adv.stag);
				status = check(g.data, op, len, 0);
				report(op, len, status, "actor");
				send_ctl(&(struct ctl){ .type = T_RESULT, .op = op, .len = len, .status = status });
			} else {
				fill(g.data, op, len);
				post_send(IBV_WR_SEND, g.data, len, g.data_mr->lkey, 0, 0);
				status = expect(T_RESULT).status;
				report(op, len, status, "target");
			}
			mismatches += status != 0;
		}
	}
	send_ctl(&(struct ctl){ .type = T_BYE });
	say("bye");
	return mismatches ? EXIT_MISMATCH : EXIT_OK;
}

static int run_target(void)
{
	int mismatches = 0;
	for (;;) {
		struct ctl req;
		uint32_t n;
		int slot = recv_msg(&req, &n);
		post_recv(slot);
		if (n != CTL_LEN)
			die(EXIT_FAILED, "expected a REQ or BYE, got %u octets", n);
		if (req.type == T_BYE) {
			say("bye");
			return mismatches ? EXIT_MISMATCH : EXIT_OK;
		}
		if (req.type != T_REQ || req.op < OP_WRITE || req.op > OP_SEND || req.len == 0 || req.len > g.max)
			die(EXIT_FAILED, "bad request: type %d op %d len %u (max %zu)", req.type, req.op, req.len, g.max);
		int op = req.op;
		uint32_t len = req.len, status;
		if (op == OP_READ)
			fill(g.data, op, len);
		else
			memset(g.data, 0, len + GUARD);
		send_ctl(&(struct ctl){ .type = T_ADV, .op = op, .len = len, .addr = (uintptr_t)g.data,
					 .stag = g.data_mr->rkey });
		if (op == OP_WRITE) {
			expect(T_DONE);
			status = check(g.data, op, len, 1);
			send_ctl(&(struct ctl){ .type = T_RESULT, .op = op, .len = len, .status = status });
			report(op, len, status, "target");
		} else if (op == OP_READ) {
			status = expect(T_RESULT).status;
			report(op, len, status, "actor");
		} else {
			struct ctl ignored;
			int dslot = recv_msg(&ignored, &n);
			const uint8_t *p = g.recv + dslot * g.rsize;
			status = n != len ? (n < len ? n + 1 : len + 1) : check(p, op, len, 0);
			post_recv(dslot);
			send_ctl(&(struct ctl){ .type = T_RESULT, .op = op, .len = len, .status = status });
			report(op, len, status, "target");
		}
		mismatches += status != 0;
	}
}

static void setup_qp(struct rdma_cm_id *id)
{
	g.id = id;
	nonblocking(id->verbs->async_fd);
	g.pd = ibv_alloc_pd(id->verbs);
	g.comp_ch = ibv_create_comp_channel(id->verbs);
	if (!g.pd || !g.comp_ch)
		die(EXIT_FAILED, "ibv_alloc_pd/ibv_create_comp_channel: %s", strerror(errno));
	nonblocking(g.comp_ch->fd);
	g.scq = ibv_create_cq(id->verbs, 16, NULL, g.comp_ch, 0);
	g.rcq = ibv_create_cq(id->verbs, 16, NULL, g.comp_ch, 0);
	if (!g.scq || !g.rcq)
		die(EXIT_FAILED, "ibv_create_cq: %s", strerror(errno));
	struct ibv_qp_init_attr attr = {
		.send_cq = g.scq, .recv_cq = g.rcq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = NRECV, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	if (rdma_create_qp(id, g.pd, &attr))
		die(EXIT_FAILED, "rdma_create_qp: %s", strerror(errno));
	g.qp = id->qp;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	g.data = aligned_alloc(4096, (g.max + GUARD + 4095) / 4096 * 4096);
	g.ctl = aligned_alloc(64, 64);
	g.recv = aligned_alloc(4096, (NRECV * g.rsize + 4095) / 4096 * 4096);
	if (!g.data || !g.ctl || !g.recv)
		die(EXIT_FAILED, "out of memory");
	memset(g.data, 0, g.max + GUARD);
	g.data_mr = ibv_reg_mr(g.pd, g.data, g.max + GUARD, access);
	g.ctl_mr = ibv_reg_mr(g.pd, g.ctl, CTL_LEN, IBV_ACCESS_LOCAL_WRITE);
	g.recv_mr = ibv_reg_mr(g.pd, g.recv, NRECV * g.rsize, IBV_ACCESS_LOCAL_WRITE);
	if (!g.data_mr || !g.ctl_mr || !g.recv_mr)
		die(EXIT_FAILED, "ibv_reg_mr: %s", strerror(errno));
	for (int i = 0; i < NRECV; i++)
		post_recv(i);
}

static struct sockaddr_in address(const char *host, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
		die(EXIT_USAGE, "not an IPv4 address: %s", host);
	return a;
}

static void connect_to(const char *host, int port, const char *source)
{
	struct sockaddr_in dst = address(host, port), src;
	if (rdma_create_id(g.cm_ch, &g.id, NULL, RDMA_PS_TCP))
		die(EXIT_FAILED, "rdma_create_id: %s", strerror(errno));
	if (source)
		src = address(source, 0);
	if (rdma_resolve_addr(g.id, source ? (struct sockaddr *)&src : NULL, (struct sockaddr *)&dst, g.timeout_ms))
		die(EXIT_NO_CONNECTION, "rdma_resolve_addr: %s", strerror(errno));
	int status;
	if (wait_cm(&status, NULL) != RDMA_CM_EVENT_ADDR_RESOLVED)
		die(EXIT_NO_CONNECTION, "address not resolved");
	if (rdma_resolve_route(g.id, g.timeout_ms))
		die(EXIT_NO_CONNECTION, "rdma_resolve_route: %s", strerror(errno));
	if (wait_cm(&status, NULL) != RDMA_CM_EVENT_ROUTE_RESOLVED)
		die(EXIT_NO_CONNECTION, "route not resolved");
	say("device %s", ibv_get_device_name(g.id->verbs->device));
	setup_qp(g.id);
	struct rdma_conn_param param = { .responder_resources = 8, .initiator_depth = 8, .retry_count = 7 };
	if (rdma_connect(g.id, &param))
		die(EXIT_NO_CONNECTION, "rdma_connect: %s", strerror(errno));
	enum rdma_cm_event_type type = wait_cm(&status, NULL);
	if (type != RDMA_CM_EVENT_ESTABLISHED)
		die(EXIT_NO_CONNECTION, "not connected: %s status=%d", rdma_event_str(type), status);
	say("connected");
}

static void accept_one(const char *host, int port)
{
	struct sockaddr_in local = address(host, port);
	if (rdma_create_id(g.cm_ch, &g.listen_id, NULL, RDMA_PS_TCP))
		die(EXIT_FAILED, "rdma_create_id: %s", strerror(errno));
	if (rdma_bind_addr(g.listen_id, (struct sockaddr *)&local))
		die(EXIT_FAILED, "rdma_bind_addr %s:%d: %s", host, port, strerror(errno));
	if (rdma_listen(g.listen_id, 1))
		die(EXIT_FAILED, "rdma_listen: %s", strerror(errno));
	say("listening %s %d", host, port);
	int status;
	struct rdma_cm_event ev;
	enum rdma_cm_event_type type = wait_cm(&status, &ev);
	if (type != RDMA_CM_EVENT_CONNECT_REQUEST)
		die(EXIT_NO_CONNECTION, "expected a connect request, got %s", rdma_event_str(type));
	say("device %s", ibv_get_device_name(ev.id->verbs->device));
	setup_qp(ev.id);
	struct rdma_conn_param param = {
		.responder_resources = ev.param.conn.initiator_depth < 8 ? ev.param.conn.initiator_depth : 8,
		.initiator_depth = ev.param.conn.responder_resources < 8 ? ev.param.conn.responder_resources : 8,
	};
	if (rdma_accept(g.id, &param))
		die(EXIT_NO_CONNECTION, "rdma_accept: %s", strerror(errno));
	type = wait_cm(&status, NULL);
	if (type != RDMA_CM_EVENT_ESTABLISHED)
		die(EXIT_NO_CONNECTION, "not connected: %s status=%d", rdma_event_str(type), status);
	say("connected");
}

static void usage(void)
{
	fprintf(stderr,
		"usage: iwarp_peer -s|-c -a ADDR -p PORT [-b SOURCE] [-r actor|target] [-o write,read,send]\n"
		"                  [-S SIZE,...] [-O] [-t SECONDS]\n"
		"  -s listen on ADDR:PORT, -c connect to it (from SOURCE); -r the role in the transfers;\n"
		"  -O (actor) the first write goes one octet past the target's buffer\n");
	exit(EXIT_USAGE);
}

int main(int argc, char **argv)
{
	int server = -1, port = 0, actor = 0, oob = 0, nops = 0, nsizes = 0;
	int ops[MAX_OPS];
	uint32_t sizes[MAX_SIZES];
	const char *host = NULL, *source = NULL, *opt_ops = "write,read,send", *opt_sizes = "1,4096,1048576";
	g.timeout_ms = 30000;
	int c;
	while ((c = getopt(argc, argv, "sca:p:b:r:o:S:Ot:")) != -1) {
		switch (c) {
		case 's': server = 1; break;
		case 'c': server = 0; break;
		case 'a': host = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'b': source = optarg; break;
		case 'r':
			if (strcmp(optarg, "actor") && strcmp(optarg, "target"))
				usage();
			actor = !strcmp(optarg, "actor");
			break;
		case 'o': opt_ops = optarg; break;
		case 'S': opt_sizes = optarg; break;
		case 'O': oob = 1; break;
		case 't': g.timeout_ms = atoi(optarg) * 1000; break;
		default: usage();
		}
	}
	if (server < 0 || !host || port <= 0 || g.timeout_ms <= 0)
		usage();
	char *list = strdup(opt_ops);
	for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
		int op = !strcmp(t, "write") ? OP_WRITE : !strcmp(t, "read") ? OP_READ : !strcmp(t, "send") ? OP_SEND : 0;
		if (!op || nops == MAX_OPS)
			usage();
		ops[nops++] = op;
	}
	list = strdup(opt_sizes);
	g.max = 64;
	for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
		long v = atol(t);
		if (v < 1 || v > (64L << 20) || nsizes == MAX_SIZES)
			usage();
		sizes[nsizes++] = (uint32_t)v;
		if ((size_t)v > g.max)
			g.max = (size_t)v;
	}
	/* Both ends size their buffers (and each posted receive) for the largest size given. */
	g.rsize = g.max;

	g.cm_ch = rdma_create_event_channel();
	if (!g.cm_ch)
		die(EXIT_FAILED, "rdma_create_event_channel: %s (is rdma_ucm loaded?)", strerror(errno));
	nonblocking(g.cm_ch->fd);
	if (server)
		accept_one(host, port);
	else
		connect_to(host, port, source);

	int result = actor ? run_actor(ops, nops, sizes, nsizes, oob) : run_target();

	if (actor) {
		rdma_disconnect(g.id);
	}
	/* Both ends: wait for the disconnect, so the other end's last messages were delivered. */
	int status;
	while (!g.disconnected) {
		drain_side_events();
		if (g.disconnected)
			break;
		if (wait_cm(&status, NULL) == RDMA_CM_EVENT_DISCONNECTED)
			break;
	}
	if (!actor)
		rdma_disconnect(g.id);
	say("exit %d", result);
	return result;
}
