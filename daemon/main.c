// SPDX-License-Identifier: BSD-3-Clause
/*
 * optincd, the OptINC switch on DPDK: EAL, options, ports, jobs and
 * telemetry are set up in that order, then every lcore polls its queues
 * (lcore.c) until SIGINT or SIGTERM.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include "optincd.h"

/* optincd's log types (optincd.h); RTE_LOG_DEFAULT_LOGTYPE is "optinc" */
RTE_LOG_REGISTER_DEFAULT(optinc_logtype, INFO);
RTE_LOG_REGISTER_SUFFIX(optinc_logtype_agg, agg, INFO);
RTE_LOG_REGISTER_SUFFIX(optinc_logtype_uplink, uplink, INFO);

static void signal_handler(int signum)
{
	if (signum == SIGINT || signum == SIGTERM)
		optinc_lcores_stop();
}

/* A job's line: its table as found (optinc_table_find()), else as given. */
static void main_banner_job(const struct optinc_job_conf *jc,
			    const struct optinc_agg_job *j)
{
	const char *table = j->table ? j->table->path : jc->table;

	OPTINC_LOG(INFO, "job %u size %u bits %u mode %s%s%s window %u "
		   "max-elems %u lcore %u%s", jc->job.id, jc->job.size, jc->job.bits,
		   jc->job.mode == OPTINC_MODE_ONN ? "onn" : "exact",
		   table ? " table " : "", table ? table : "",
		   jc->job.window, jc->job.max_elems, optinc_workers[j->worker].lcore,
		   j->served ? "" : " (not served: bad table)");
}

/* Which lcores poll, and how many rx queues of the ports each has. */
static void main_banner_lcores(void)
{
	char list[8 * OPTINC_MAX_WORKERS] = "";
	unsigned int i, n = 0;

	for (i = 0; i < optinc_nb_workers; i++)
		n += snprintf(list + n, sizeof(list) - n, "%s%u(%u rx)",
			      i ? " " : "", optinc_workers[i].lcore,
			      optinc_workers[i].nb_rx);
	OPTINC_LOG(INFO, "%u lcore%s poll%s: %s", optinc_nb_workers,
		   optinc_nb_workers > 1 ? "s" : "",
		   optinc_nb_workers > 1 ? "" : "s", list);
}

static void main_banner(const struct optinc_conf *c)
{
	char ip[INET_ADDRSTRLEN], mac[RTE_ETHER_ADDR_FMT_SIZE];
	unsigned int i;
	uint16_t p;

	inet_ntop(AF_INET, &c->sw.ip, ip, sizeof(ip));
	optinc_mac_fmt(mac, sizeof(mac), c->sw.mac);
	OPTINC_LOG(INFO, "switch %s mac %s udp %u, idle sleep up to %u us",
		   ip, mac, c->udp_port, c->idle_us);
	main_banner_lcores();
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

	ret = optinc_lcores_init();
	if (ret)
		return ret;
	ret = optinc_ports_init(c);
	if (ret)
		return ret;
	ret = optinc_lcores_rings();
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
		optinc_lcores_run(&conf);
		OPTINC_LOG(INFO, "stopping");
	}

	optinc_tlm_stop();
	optinc_lcores_free();
	optinc_ports_close();
	optinc_agg_free();
	optinc_opts_free(&conf);
	rte_eal_cleanup();
	free(eal_argv);
	optinc_eal_args_free();
	return ret < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
