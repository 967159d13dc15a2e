// SPDX-License-Identifier: BSD-3-Clause
/*
 * optincd, the OptINC switch on DPDK: EAL, options, ports, jobs and
 * telemetry are set up in that order, then the main lcore polls every
 * port until SIGINT or SIGTERM.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <arpa/inet.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include "optincd.h"

/* Empty rounds over all ports before the loop starts to sleep. */
#define IDLE_POLLS	1000

static volatile bool force_quit;

/* optincd's log types (optincd.h); RTE_LOG_DEFAULT_LOGTYPE is "optinc" */
RTE_LOG_REGISTER_DEFAULT(optinc_logtype, INFO);
RTE_LOG_REGISTER_SUFFIX(optinc_logtype_agg, agg, INFO);
RTE_LOG_REGISTER_SUFFIX(optinc_logtype_uplink, uplink, INFO);

static void signal_handler(int signum)
{
	if (signum == SIGINT || signum == SIGTERM)
		force_quit = true;
}

static uint16_t main_rx(uint16_t port, const struct optinc_conf *c,
			uint64_t now)
{
	struct optinc_port_stats *s = &optinc_ports[port].stats;
	struct rte_mbuf *pkts[OPTINC_BURST];
	uint64_t bytes = 0;
	uint16_t i, nb;

	nb = rte_eth_rx_burst(port, 0, pkts, OPTINC_BURST);
	if (unlikely(nb == 0))
		return 0;
	for (i = 0; i < nb; i++)
		bytes += rte_pktmbuf_pkt_len(pkts[i]);
	OPTINC_STAT_ADD(s->rx_pkts, nb);
	OPTINC_STAT_ADD(s->rx_bytes, bytes);
	for (i = 0; i < nb; i++)
		optinc_dp_input(pkts[i], port, c, now);
	return nb;
}

/*
 * Back off when idle: after IDLE_POLLS empty rounds sleep 1 us, then
 * twice as long after every further empty round, up to c->idle_us. Any
 * frame resets it. Latency cost: a frame that arrives while the loop
 * sleeps waits for the rest of that sleep (at most idle_us).
 */
static void main_idle(const struct optinc_conf *c, uint32_t *empty,
		      uint32_t *sleep_us)
{
	if (!c->idle_us || ++*empty < IDLE_POLLS)
		return;
	*sleep_us = *sleep_us ? RTE_MIN(*sleep_us * 2, c->idle_us) : 1;
	OPTINC_STAT_INC(optinc_sw_stats.idle_sleeps);
	OPTINC_STAT_ADD(optinc_sw_stats.idle_us, *sleep_us);
	rte_delay_us_sleep(*sleep_us);
}

static void main_loop(const struct optinc_conf *c)
{
	uint32_t empty = 0, sleep_us = 0;
	uint16_t i, nb;
	uint64_t now;

	/* the kernel's default 50 us timer slack would swamp short sleeps */
	prctl(PR_SET_TIMERSLACK, 1000UL);
	while (!force_quit) {
		now = rte_rdtsc();
		nb = 0;
		for (i = 0; i < optinc_nb_ports; i++)
			nb += main_rx(optinc_port_ids[i], c, now);
		optinc_ports_flush();
		optinc_agg_sync();
		OPTINC_STAT_INC(optinc_sw_stats.polls);
		if (likely(nb)) {
			empty = 0;
			sleep_us = 0;
			continue;
		}
		main_idle(c, &empty, &sleep_us);
	}
}

/* A job's line: its table as found (optinc_table_find()), else as given. */
static void main_banner_job(const struct optinc_job_conf *jc,
			    const struct optinc_agg_job *j)
{
	const char *table = j->table ? j->table->path : jc->table;

	OPTINC_LOG(INFO, "job %u size %u bits %u mode %s%s%s window %u "
		   "max-elems %u%s", jc->id, jc->size, jc->bits,
		   jc->mode == OPTINC_MODE_ONN ? "onn" : "exact",
		   table ? " table " : "", table ? table : "",
		   jc->window, jc->max_elems,
		   j->served ? "" : " (not served: bad table)");
}

static void main_banner(const struct optinc_conf *c)
{
	char ip[INET_ADDRSTRLEN], mac[RTE_ETHER_ADDR_FMT_SIZE];
	unsigned int i;
	uint16_t p;

	inet_ntop(AF_INET, &c->sw.ip, ip, sizeof(ip));
	optinc_mac_fmt(mac, sizeof(mac), c->sw.mac);
	OPTINC_LOG(INFO, "switch %s mac %s udp %u, lcore %u, idle sleep up to %u us",
		   ip, mac, c->udp_port, rte_lcore_id(), c->idle_us);
	if (c->rl_pps)
		OPTINC_LOG(INFO, "rate limit %u JOINs and bad frames/s per port, burst %u",
			   c->rl_pps, c->rl_burst);
	else
		OPTINC_LOG(INFO, "rate limit off");
	for (i = 0; i < optinc_nb_ports; i++) {
		p = optinc_port_ids[i];
		OPTINC_LOG(INFO, "port %u %s (%s) mtu %u max frame %u", p,
			   optinc_ports[p].name, optinc_ports[p].driver,
			   optinc_ports[p].mtu, optinc_ports[p].max_frame);
	}
	for (i = 0; i < c->nb_jobs; i++)
		main_banner_job(&c->jobs[i], optinc_agg_at(i));
	if (rte_lcore_count() > 1)
		OPTINC_LOG(INFO, "only lcore %u polls; the other lcores idle",
			   rte_lcore_id());
	OPTINC_LOG(DEBUG, "debug messages on for log type optinc%s%s",
		   rte_log_can_log(optinc_logtype_agg, RTE_LOG_DEBUG) ?
		   ", optinc.agg" : "",
		   rte_log_can_log(optinc_logtype_uplink, RTE_LOG_DEBUG) ?
		   ", optinc.uplink" : "");
}

/* Ports, jobs and telemetry; on failure what was set up stays for cleanup. */
static int main_setup(struct optinc_conf *c)
{
	int ret;

	ret = optinc_ports_init(c);
	if (ret)
		return ret;
	if (!c->mac_set)
		memcpy(c->sw.mac, optinc_ports[optinc_port_ids[0]].mac.addr_bytes,
		       RTE_ETHER_ADDR_LEN);
	/* the rules' and the uplinks' settings, before any job */
	ret = optinc_agg_dp_init(c) ?: optinc_uplink_init(c);
	if (ret)
		return ret;
	ret = optinc_agg_init(c);
	if (ret)
		return ret;
	optinc_l2_init();
	return optinc_tlm_init(c);
}

/*
 * "optincd -- --help" answers before the EAL starts: that needs hugepages
 * (or --no-huge) and often root, which a reader of the help has not set up.
 */
static bool main_help_only(int argc, char **argv)
{
	int i = 1;

	while (i < argc && strcmp(argv[i], "--"))
		i++;
	for (i++; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

/*
 * rte_eal_init() failed and EAL's own lines ("EAL: ...") above say why;
 * this names the usual causes on a machine set up for the first time.
 */
static void main_eal_failed(void)
{
	OPTINC_LOG(ERR, "EAL start-up failed: %s. Without hugepages: EAL "
		   "options --no-huge -m 256; without DPDK NICs: --no-pci and "
		   "--vdev net_af_packet0,iface=IFACE; several optincd: "
		   "--file-prefix NAME each (Documentation/optincd.md)",
		   rte_strerror(rte_errno));
}

int main(int argc, char **argv)
{
	struct optinc_conf conf;
	char **eal_argv;
	int ret, n;

	if (main_help_only(argc, argv)) {
		optinc_opts_usage(argv[0]);
		printf("EAL options (before --): %s --help, or DPDK's documentation\n",
		       argv[0]);
		return EXIT_SUCCESS;
	}
	rte_set_application_usage_hook(optinc_opts_usage);
	if (optinc_eal_args(argc, argv, &eal_argv)) {
		OPTINC_LOG(ERR, "out of memory");
		return EXIT_FAILURE;
	}
	ret = rte_eal_init(argc, eal_argv);
	if (ret < 0) {
		main_eal_failed();
		free(eal_argv);
		optinc_eal_args_free();
		return EXIT_FAILURE;
	}
	n = argc - ret;

	force_quit = false;
	signal(SIGINT, signal_handler);
	signal(SIGTERM, signal_handler);

	optinc_opts_defaults(&conf);
	ret = optinc_opts_parse(&conf, n, eal_argv + ret);
	if (!ret && conf.help)
		optinc_opts_usage(argv[0]);
	else if (!ret)
		ret = main_setup(&conf);
	if (!ret && !conf.help) {
		main_banner(&conf);
		main_loop(&conf);
		OPTINC_LOG(INFO, "stopping");
	}

	optinc_tlm_stop();
	optinc_ports_close();
	optinc_agg_free();
	optinc_opts_free(&conf);
	rte_eal_cleanup();
	free(eal_argv);
	optinc_eal_args_free();
	return ret < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
