// SPDX-License-Identifier: BSD-3-Clause
/*
 * optinc-onn train: hardware-aware training on the whole domain of unit P.
 *
 * Stage 1 trains the dense network with the regression loss (margin1) and
 * projects the approximated layers onto their Sigma * U blocks every
 * proj_every epochs. Stage 2 projects once more and from then on trains
 * the approximated layers as what the optics build, diag(Sigma) * U with U
 * kept orthogonal (net.c), with the margin2 hinge, on the points that
 * are not yet right with margin2 + slack to spare, until every domain
 * point is right with stop_margin to spare (or epochs2 run out).
 * Shuffles depend only on (seed, epoch), so a run resumed from a
 * checkpoint is bit-identical to one never stopped, and one resumed with
 * another seed is another walk from the same network.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cblas.h>

#include "train.h"

struct trainer {
	struct optinc_onn_cfg cfg;
	struct optinc_onn_net net;
	struct optinc_onn_data data;
	struct optinc_onn_progress prog;
	uint32_t *perm;
	uint8_t *tbatch;
	float *wbatch;
	float sdir[8];			/* unit vector of S_K in input space */
	uint8_t *active;		/* stage 2: points to train on */
	int active_valid;
	const char *out, *ckpt;
	unsigned int ckpt_every;
	unsigned int stop_after;	/* 0, or pause after this epoch */
	unsigned int noise_every;	/* steps between two noise draws */
	const char *noise_list;		/* --noise-layers */
	uint32_t noise_layers;		/* bit l: layer l gets the noise */
	double avg_dt;			/* smoothed seconds per epoch */
	int resume;
	int keep_best;			/* write the best stage-2 epoch's network */
	struct optinc_onn_net best;	/* ... kept here (keep_best) */
	uint32_t best_wrong;		/* its wrong count; UINT32_MAX: none */
	double best_margin;		/* its worst margin */
	unsigned int best_epoch;
	float boost;			/* stage 2: wrong rows weigh 1 + boost */
	float ema;			/* stage 2: decay of the average; 0: off */
	struct optinc_onn_net avg;	/* ... the average of the steps */
	struct optinc_onn_net avg_net;	/* ... and it realised (evaluated) */
	struct optinc_onn_stats avg_ev;	/* ... avg_net over the domain */
	int avg_valid;			/* the average has a first step */
	int avg_evaluated;		/* avg_net and avg_ev are of the last epoch */
	int best_avg;			/* the kept network is an average */
	double revive[3];		/* first S, step, slope (0: off) */
	float revive_hidden;		/* hidden units' new top (0: off) */
	float lr_first;			/* first layer's weights: rate times this */
	int init_rows;			/* hidden hinges through random rows */
	unsigned int noise_hot;		/* --noise-hot: draws per evaluation */
	uint8_t *hot;			/* ... rows a draw moved; trained */
	float *clean, *noisy;		/* ... each row's worst margin */
	struct optinc_onn_net probe;	/* ... the network a draw perturbs */
	uint32_t hot_lost, hot_rows;	/* ... the last evaluation's */
	unsigned int best_noise;	/* --best-noise: chips per check */
	unsigned int best_every;	/* ... epochs between two checks */
	uint64_t best_lost;		/* ... the kept one's; UINT64_MAX: none */
	double best_chip_margin;	/* ... its worst margin on the chips */
	uint64_t lost[2];		/* ... this epoch's network, average */
	double chip_margin[2];		/* ... their worst margins on the chips */
	int cut[2];			/* ... counts stopped past the kept one */
	int scored;			/* ... lost[] is of this epoch */
};

/* SIGINT or SIGTERM during a run: end it after the current epoch. */
static volatile sig_atomic_t train_stop_sig;

static void train_on_signal(int sig)
{
	train_stop_sig = sig;
}

/*
 * A long run is stopped with ^C or kill and still written: the epoch in
 * progress finishes, then the checkpoint and the model (the best epoch's
 * with --keep-best) as at the end of stage 2. SA_RESETHAND: a second
 * signal ends the program at once, as it would without this. A signal
 * the parent had ignored stays ignored (a shell starts background jobs
 * with SIGINT ignored, so that ^C at the terminal leaves them running).
 */
static void train_catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	struct sigaction sa, old;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = train_on_signal;
	sa.sa_flags = SA_RESETHAND | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
}

static double train_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * The points of this epoch, shuffled: the whole domain, or in stage 2
 * only the active ones (an output closer than margin2 + slack to leaving
 * its symbol's interval at the last evaluation): the hinge is zero on the
 * others, so leaving them out does not change any gradient.
 */
static uint32_t train_shuffle(struct trainer *tr, unsigned int epoch, int stage)
{
	struct optinc_onn_rng rng;
	uint32_t i, j, t, n = 0;

	for (i = 0; i < tr->data.n; i++)
		if (stage == 1 || tr->active[i])
			tr->perm[n++] = i;
	optinc_onn_rng_seed(&rng, tr->cfg.seed * 0x100000001b3ull + epoch + 1);
	for (i = n; i-- > 1;) {
		j = optinc_onn_rng_next(&rng) % (i + 1);
		t = tr->perm[i];
		tr->perm[i] = tr->perm[j];
		tr->perm[j] = t;
	}
	return n;
}

static void train_gather(struct trainer *tr, uint32_t first, unsigned int rows)
{
	const struct optinc_onn_data *d = &tr->data;
	unsigned int r;

	for (r = 0; r < rows; r++) {
		uint32_t p = tr->perm[first + r];

		memcpy(tr->net.act[0] + (size_t)r * d->in, d->x + (size_t)p * d->in,
		       d->in * sizeof(float));
		memcpy(tr->tbatch + (size_t)r * d->out, d->t + (size_t)p * d->out,
		       d->out);
		tr->wbatch[r] = d->w[p];
		if (tr->active_valid && tr->active[p] == 2)
			tr->wbatch[r] *= 1 + tr->boost;
	}
}

/*
 * With --noise, before each step of stage 2 the blocks are perturbed as a
 * chip with that MZI phase error builds them; a new error every
 * noise_every steps, drawn from (seed, epoch) like the shuffle.
 */
static int train_noise(struct trainer *tr, unsigned int epoch,
		       unsigned int step, struct optinc_onn_rng *rng)
{
	int err = 0;

	if (step == 1)
		optinc_onn_rng_seed(rng, tr->cfg.seed * 0x9e3779b97f4a7c15ull +
					 epoch + 1);
	if ((step - 1) % tr->noise_every == 0)
		err = optinc_onn_net_noise_sample(&tr->net, tr->cfg.noise,
						  tr->noise_layers, rng);
	if (!err)
		optinc_onn_net_noise_apply(&tr->net);
	return err;
}

/*
 * With --ema, every stage-2 step is folded into an exponential average of
 * the parameters; the average starts from the first step of this run (it
 * is not in the checkpoint).
 */
static void train_ema_step(struct trainer *tr)
{
	if (tr->avg_valid) {
		optinc_onn_net_ema(&tr->avg, &tr->net, tr->ema);
		return;
	}
	optinc_onn_net_copy(&tr->avg, &tr->net);
	tr->avg_valid = 1;
}

/* One pass over this epoch's points in shuffled minibatches. */
static int train_epoch(struct trainer *tr, unsigned int epoch, int stage,
		       float lr, struct optinc_onn_stats *st)
{
	const struct optinc_onn_cfg *c = &tr->cfg;
	float margin = stage == 1 ? c->margin1 : c->margin2;
	uint32_t i, n = train_shuffle(tr, epoch, stage);
	int orth = 1, noisy = stage == 2 && c->noise > 0, err = 0;
	struct optinc_onn_rng rng;
	unsigned int rows, step;

	st->loss = 0;
	st->wrong = 0;
	st->trained = n;
	for (i = 0, step = 1; i < n && !err; i += rows, step++) {
		rows = n - i < c->batch ? n - i : c->batch;
		train_gather(tr, i, rows);
		if (noisy)
			err = train_noise(tr, epoch, step, &rng);
		optinc_onn_net_forward(&tr->net, rows);
		st->loss += optinc_onn_net_loss(&tr->net, tr->tbatch, tr->wbatch,
						rows, margin, &st->wrong);
		optinc_onn_net_backward(&tr->net, rows);
		if (noisy)
			optinc_onn_net_noise_remove(&tr->net);
		orth = step % c->retract_every == 0;
		optinc_onn_net_adam(&tr->net, lr, lr * tr->lr_first, orth);
		if (c->s_invariant || c->first_axes)
			optinc_onn_net_first_rows(&tr->net, tr->sdir,
						  (unsigned int)c->s_invariant,
						  c->first_axes);
		if (stage == 2 && tr->ema > 0)
			train_ema_step(tr);
	}
	if (!orth)	/* every epoch ends with U orthogonal */
		optinc_onn_net_retract(&tr->net);
	st->loss /= tr->data.n;
	return err;
}

/* Cosine decay from lr to lr * lr_end over a stage. */
static float train_lr(float lr, float end, unsigned int e, unsigned int len)
{
	double t = len > 1 ? (double)e / (len - 1) : 1.0;

	return (float)(lr * (end + (1 - end) * 0.5 * (1 + cos(M_PI * t))));
}

static void train_eta(char *buf, size_t len, double s)
{
	unsigned long t = (unsigned long)(s + 0.5);

	snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
}

/*
 * " 30 chips lose: network 12+, average 0 at +0.041 (kept: 0 at +0.041)":
 * "-" not exact, "12+" stopped at 12 (past the kept one's count), "at" the
 * worst margin on the chips
 */
static void train_say_lost(const struct trainer *tr, char *buf, size_t len)
{
	char v[3][40];
	int i;

	for (i = 0; i < 2; i++)
		if (tr->lost[i] == UINT64_MAX)
			snprintf(v[i], sizeof(v[i]), "-");
		else if (tr->cut[i])
			snprintf(v[i], sizeof(v[i]), "%llu+",
				 (unsigned long long)tr->lost[i]);
		else
			snprintf(v[i], sizeof(v[i]), "%llu at %+.3f",
				 (unsigned long long)tr->lost[i],
				 tr->chip_margin[i]);
	if (tr->best_lost == UINT64_MAX)
		snprintf(v[2], sizeof(v[2]), "-");
	else
		snprintf(v[2], sizeof(v[2]), "%llu at %+.3f",
			 (unsigned long long)tr->best_lost, tr->best_chip_margin);
	snprintf(buf, len, " %u chips lose: network %s, average %s (kept: %s)",
		 tr->best_noise, v[0], v[1], v[2]);
}

static void train_report(struct trainer *tr, unsigned int e, int stage,
			 float lr, const struct optinc_onn_stats *st,
			 const struct optinc_onn_stats *ev,
			 const struct optinc_onn_stats *eva, double dt)
{
	const struct optinc_onn_cfg *c = &tr->cfg;
	unsigned int total = c->epochs1 + c->epochs2;
	char eta[32], exact[96] = "", avg[96] = "", hot[96] = "", chips[160] = "";

	train_eta(eta, sizeof(eta), tr->avg_dt * (total - e - 1));
	if (ev)
		snprintf(exact, sizeof(exact), " exact %.4f%% (%u wrong) margin %+.3f",
			 100.0 * (tr->data.domain - ev->wrong) / tr->data.domain,
			 ev->wrong, ev->min_margin);
	if (eva)
		snprintf(avg, sizeof(avg), " average %.4f%% (%u wrong) margin %+.3f",
			 100.0 * (tr->data.domain - eva->wrong) / tr->data.domain,
			 eva->wrong, eva->min_margin);
	if (ev && stage == 2 && tr->noise_hot)
		snprintf(hot, sizeof(hot), " noisy %u wrong in %u draws, %u hot",
			 tr->hot_lost, tr->noise_hot, tr->hot_rows);
	if (tr->scored)
		train_say_lost(tr, chips, sizeof(chips));
	printf("epoch %u/%u stage %d lr %.2e loss %.4e trained %u%s%s%s%s %.3f s/epoch ETA %s\n",
	       e + 1, total, stage, lr, st->loss, st->trained, exact, hot, avg,
	       chips, dt, eta);
	fflush(stdout);
}

/*
 * --noise-hot K: after each clean evaluation of stage 2, K chips with the
 * --noise error. Phase noise moves a few outputs by many times its rms
 * (steep outputs at a few inputs: Documentation/onn.md section 2, "Where
 * the shipped N = 8 loses its points"), so a point with a wide clean
 * margin is lost while the clean evaluation never puts it among the rows
 * trained. A row that a draw takes past half its worst margin on the chip
 * without noise (sigma 0: the realised phases, as verify --hot compares;
 * the float network differs from it by about 1e-6, more than the margin
 * of a row about to cross) is hot: it is trained from then on, with the
 * noise of the steps, and weighs 1 + boost (tr->hot, not in the
 * checkpoint). The draws of the evaluation before epoch @e come from
 * (seed, e), a stream of their own. Return: 0 or -ENOMEM.
 */
static int train_noise_hot(struct trainer *tr, unsigned int e)
{
	const struct optinc_onn_cfg *c = &tr->cfg;
	struct optinc_onn_stats st;
	struct optinc_onn_rng rng;
	unsigned int k;
	uint32_t i;
	int err = 0;

	tr->hot_lost = 0;
	optinc_onn_rng_seed(&rng, c->seed * 0xc2b2ae3d27d4eb4full + e + 1);
	err = optinc_onn_net_noise_eval(&tr->probe, &tr->net, &tr->data, 0.0f,
					tr->noise_layers, &rng, &st, tr->clean);
	for (k = 0; k < tr->noise_hot && !err; k++) {
		err = optinc_onn_net_noise_eval(&tr->probe, &tr->net, &tr->data,
						c->noise, tr->noise_layers, &rng,
						&st, tr->noisy);
		if (err)
			break;
		tr->hot_lost += st.wrong;
		for (i = 0; i < tr->data.n; i++)
			tr->hot[i] |= tr->clean[i] > 0 &&
				      tr->noisy[i] < tr->clean[i] / 2;
	}
	tr->hot_rows = 0;
	for (i = 0; i < tr->data.n; i++) {
		tr->hot_rows += tr->hot[i];
		if (tr->hot[i])
			tr->active[i] = 2;
	}
	return err;
}

/*
 * Before epoch e: the start of stage 2 (project, train as Sigma * U), and
 * in stage 2 an evaluation to find the active points when there is none
 * from the previous epoch (first epoch of the stage, or just resumed).
 */
static int train_stage_start(struct trainer *tr, unsigned int e)
{
	const struct optinc_onn_cfg *c = &tr->cfg;
	struct optinc_onn_stats ev;
	int err = 0;

	if (e == c->epochs1) {
		optinc_onn_net_adam_reset(&tr->net);
		err = optinc_onn_net_manifold(&tr->net, c, 4 * c->proj_iters);
		/* a new run without stage 1 first trains the projected blocks */
		if (!err && !e && tr->init_rows)
			optinc_onn_net_hinge_rows(&tr->net, &tr->data, c->seed);
	}
	if (!err && e >= c->epochs1 && !tr->active_valid) {
		optinc_onn_net_eval(&tr->net, &tr->data, &ev, tr->active,
				    c->margin2 + c->slack, NULL);
		tr->active_valid = 1;
		if (tr->noise_hot)
			err = train_noise_hot(tr, e);
	}
	return err;
}

/*
 * After epoch e: evaluate (every stage-2 epoch), decide whether done.
 * Return: 1 when evaluated, 0 when not, or -ENOMEM (--noise-hot).
 */
static int train_epoch_end(struct trainer *tr, unsigned int e, int stage,
			   struct optinc_onn_stats *ev)
{
	const struct optinc_onn_cfg *c = &tr->cfg;
	int last = e + 1 == c->epochs1 || e + 1 == c->epochs1 + c->epochs2;
	int err;

	if (stage == 2) {
		optinc_onn_net_eval(&tr->net, &tr->data, ev, tr->active,
				    c->margin2 + c->slack, NULL);
		if (!ev->wrong && ev->min_margin >= c->stop_margin)
			tr->prog.done = 1;
		err = tr->noise_hot ? train_noise_hot(tr, e + 1) : 0;
		return err ? err : 1;
	}
	if (last || (c->eval_every && (e + 1) % c->eval_every == 0)) {
		optinc_onn_net_eval(&tr->net, &tr->data, ev, NULL, 0, NULL);
		return 1;
	}
	return 0;
}

/*
 * After a stage-2 epoch with --ema: the average realised and evaluated
 * over the whole domain (@eva); an exact average with the stopping margin
 * ends the run like an exact network. Return: 1 when evaluated.
 */
static int train_average(struct trainer *tr, struct optinc_onn_stats *eva)
{
	if (!(tr->ema > 0) || !tr->avg_valid)
		return 0;
	optinc_onn_net_ema_realise(&tr->avg_net, &tr->avg, &tr->net);
	optinc_onn_net_eval(&tr->avg_net, &tr->data, eva, NULL, 0, NULL);
	tr->avg_ev = *eva;
	tr->avg_evaluated = 1;
	if (!eva->wrong && eva->min_margin >= tr->cfg.stop_margin)
		tr->prog.done = 1;
	return 1;
}

/*
 * --keep-best's order: fewer wrong points, and between exact networks the
 * wider worst margin (what phase noise eats first). Among networks with
 * wrong points the margin does not decide: the first of a count is kept,
 * so that a run which never gets exact keeps what it always kept.
 */
static int train_better(uint32_t wrong, double margin, uint32_t than_wrong,
			double than_margin)
{
	return wrong < than_wrong ||
	       (!wrong && !than_wrong && margin > than_margin);
}

static void train_keep_one(struct trainer *tr, unsigned int e, int avg,
			   const struct optinc_onn_stats *k)
{
	optinc_onn_net_copy(&tr->best, avg ? &tr->avg_net : &tr->net);
	tr->best_wrong = k->wrong;
	tr->best_margin = k->min_margin;
	tr->best_epoch = e + 1;
	tr->best_avg = avg;
}

/*
 * The chips of --best-noise: a stream of their own, the same every check
 * (and apart from verify's --seed S streams, which start from S itself).
 */
static uint64_t train_chips_seed(const struct optinc_onn_cfg *c)
{
	return c->seed * 0xd6e8feb86659fd93ull + 0x6368697073ull; /* "chips" */
}

/*
 * --best-noise K: every best_every-th epoch, the epoch's exact networks
 * (the network, the average) go through the same K chips with the
 * --noise error, and one that loses fewer points than the kept one
 * (as many: a wider worst margin on the chips) is kept. The clean margin
 * does not tell which networks lose points at 1e-4: the widest one of
 * the shipped N = 8's walk lost the most (Documentation/onn.md section 2,
 * "The rows the noise moves, trained"). A chip-by-chip count stops once
 * it is past the kept one's. Return: 0 or -ENOMEM.
 */
static int train_keep_noisy(struct trainer *tr, unsigned int e,
			    const struct optinc_onn_stats *ev,
			    const struct optinc_onn_stats *eva)
{
	const struct optinc_onn_stats *st[2] = { ev, eva };
	const struct optinc_onn_net *cand[2] = { &tr->net, &tr->avg_net };
	int i, err;

	tr->lost[0] = tr->lost[1] = UINT64_MAX;
	tr->scored = (e + 1) % tr->best_every == 0;
	for (i = 0; i < 2 && tr->scored; i++) {
		uint64_t limit = tr->best_lost;

		if (!st[i] || st[i]->wrong)
			continue;
		err = optinc_onn_net_noise_lost(&tr->probe, cand[i], &tr->data,
						tr->cfg.noise, tr->noise_layers,
						train_chips_seed(&tr->cfg),
						tr->best_noise, limit,
						&tr->lost[i], &tr->chip_margin[i]);
		if (err)
			return err;
		tr->cut[i] = tr->lost[i] > limit;
		if (tr->lost[i] < tr->best_lost ||
		    (tr->lost[i] == tr->best_lost &&
		     tr->chip_margin[i] > tr->best_chip_margin)) {
			train_keep_one(tr, e, i, st[i]);
			tr->best_lost = tr->lost[i];
			tr->best_chip_margin = tr->chip_margin[i];
		}
	}
	return 0;
}

/*
 * --keep-best: the epoch's network, or its average, if the best so far;
 * with --best-noise, by the chips once one exact network has been through
 * them. Return: 0 or -ENOMEM.
 */
static int train_keep(struct trainer *tr, unsigned int e,
		      const struct optinc_onn_stats *ev,
		      const struct optinc_onn_stats *eva)
{
	int avg = eva && train_better(eva->wrong, eva->min_margin,
				      ev->wrong, ev->min_margin);
	const struct optinc_onn_stats *k = avg ? eva : ev;

	if (tr->best_lost == UINT64_MAX &&
	    train_better(k->wrong, k->min_margin, tr->best_wrong,
			 tr->best_margin))
		train_keep_one(tr, e, avg, k);
	return tr->best_noise ? train_keep_noisy(tr, e, ev, eva) : 0;
}

static int train_one(struct trainer *tr, unsigned int e, double *dt)
{
	const struct optinc_onn_cfg *c = &tr->cfg;
	int stage = e < c->epochs1 ? 1 : 2, err, shown, averaged = 0;
	struct optinc_onn_stats st, ev, eva;
	double t0 = train_now();
	float lr;

	err = train_stage_start(tr, e);
	if (err)
		return err;
	lr = stage == 1 ? train_lr(c->lr1, c->lr_end, e, c->epochs1)
			: train_lr(c->lr2, c->lr_end, e - c->epochs1, c->epochs2);
	err = train_epoch(tr, e, stage, lr, &st);
	if (!err && stage == 1 && c->proj_every && (e + 1) % c->proj_every == 0)
		err = optinc_onn_net_project(&tr->net, c, c->proj_iters, 1);
	if (err)
		return err;
	shown = train_epoch_end(tr, e, stage, &ev);
	if (shown < 0)
		return shown;
	if (stage == 2)
		averaged = train_average(tr, &eva);
	if (stage == 2 && tr->keep_best)
		err = train_keep(tr, e, &ev, averaged ? &eva : NULL);
	if (err)
		return err;
	*dt = train_now() - t0;
	tr->prog.seconds += *dt;
	tr->avg_dt = tr->avg_dt ? 0.9 * tr->avg_dt + 0.1 * *dt : *dt;
	train_report(tr, e, stage, lr, &st, shown ? &ev : NULL,
		     averaged ? &eva : NULL, *dt);
	return 0;
}

static int train_loop(struct trainer *tr)
{
	unsigned int total = tr->cfg.epochs1 + tr->cfg.epochs2, e;
	double dt;
	int err = 0;

	if (tr->stop_after && tr->stop_after < total)
		total = tr->stop_after;
	for (e = tr->prog.epoch;
	     e < total && !tr->prog.done && !err && !train_stop_sig; e++) {
		err = train_one(tr, e, &dt);
		if (err) {
			fprintf(stderr, "optinc-onn: epoch %u: projection or noise draw failed: %s\n",
				e + 1, strerror(-err));
			break;
		}
		tr->prog.epoch = e + 1;
		if ((tr->ckpt_every && (e + 1) % tr->ckpt_every == 0) ||
		    tr->prog.done || e + 1 == total || train_stop_sig)
			err = optinc_onn_ckpt_save(tr->ckpt, &tr->cfg, &tr->net,
						   &tr->prog);
	}
	return err;
}

/* Table I of the paper; N = 2 (our CI model) is a small net of the same kind. */
static const char *train_default_arch(unsigned int members)
{
	switch (members) {
	case 2:
		return "4-64-128-128-64-4";
	case 4:
		return "4-64-128-256-128-64-4";
	case 8:
		return "4-64-128-256-512-256-128-64-4";
	case 16:
		return "4-64-128-256-512-1024-512-256-128-64-4";
	}
	return NULL;
}

static const char *train_default_approx(unsigned int members)
{
	switch (members) {
	case 8:
		return "2-7";
	case 16:
		return "2-9";
	}
	return "all";
}

static void train_usage(FILE *f)
{
	fprintf(f,
		"usage: optinc-onn train -N MEMBERS -o MODEL [options]\n"
		"  -B, --bits B            bits per value (8)\n"
		"  --arch W0-W1-..-WL      layer widths (default: Table I for N = 4, 8, 16)\n"
		"  --approx all|none|LIST  layers realised as Sigma*U blocks, 1-based (e.g. 2-7)\n"
		"  --seed S                seed of initialisation and shuffles (1); on resume,\n"
		"                          another seed is another walk from the checkpoint\n"
		"  --init cube|rows        hidden biases: first layer's hinges through random\n"
		"                          points of the input cube, others 0 (cube); every\n"
		"                          hidden unit's hinge through a random training row\n"
		"                          (rows); a new run only\n"
		"  --batch R               minibatch rows (1024)\n"
		"  --epochs1 E             stage 1 epochs: dense, periodic projection (300)\n"
		"  --epochs2 E             stage 2 epochs at most: projected every step (300)\n"
		"  --lr1 X, --lr2 X        Adam learning rates of the stages (1e-3, 3e-4)\n"
		"  --lr-end F              cosine decay to F times the rate (0.05)\n"
		"  --margin1 X, --margin2 X  loss margins of the stages (0.5, 0.3)\n"
		"  --stop-margin X         stage 2 stops when exact with this margin (0.1)\n"
		"  --slack X               stage 2 trains points within margin2 + X (0.1)\n"
		"  --input-gain G          inputs are s_k * G / (3N) (1)\n"
		"  --s-invariant           first layer (dense) sees only S: train on the values of S\n"
		"  --s-low K               first layer sees s_0..s_K-1 only through sum 4^k s_k\n"
		"                          (2 <= K <= B/2; B/2: --s-invariant; 0: off); may drop\n"
		"                          on resume\n"
		"  --first-axes            each first-layer row (dense) reads one axis: S_K or\n"
		"                          one s_k (K = --s-low, 0: every s_k is an axis), row\n"
		"                          o the (o mod A)-th of the A axes; may be dropped on\n"
		"                          resume\n"
		"  --s-weights W           S values weighted by their domain count (domain) or 1 (uniform)\n"
		"  --proj-every E          stage 1 projection period in epochs (10; 0: never)\n"
		"  --proj-iters I          Sigma/U alternations per projection (1)\n"
		"  --retract-every S       stage 2: re-orthogonalise U every S steps (1)\n"
		"  --eval-every E          whole-domain evaluation period (10)\n"
		"  --checkpoint FILE       checkpoint file (MODEL.ckpt)\n"
		"  --checkpoint-every E    checkpoint period in epochs (10)\n"
		"  --resume                continue from the checkpoint if there is one (stage-2\n"
		"                          length, rate, --lr-end, margins, slack, noise and\n"
		"                          --s-weights may differ)\n"
		"  --stop-after E          checkpoint after epoch E and exit (to resume later)\n"
		"                          (SIGINT or SIGTERM: end after the current epoch and\n"
		"                          write the checkpoint and the model)\n"
		"  --keep-best             write the network of the stage-2 epoch with the\n"
		"                          fewest wrong points of this run (since the resume),\n"
		"                          not the last one's\n"
		"  --best-every E          --best-noise checks every E-th epoch (1)\n"
		"  --best-noise K          with --keep-best and --noise: every --best-every\n"
		"                          epoch, the exact network and average go through\n"
		"                          the same K chips with that noise, and the one that\n"
		"                          loses the fewest points (ties: the wider worst\n"
		"                          margin on them) is kept; the progress line says\n"
		"                          \"K chips lose: network L at M, average L at M\n"
		"                          (kept: L at M)\", L+ where a count stopped past\n"
		"                          the kept one's, - where not exact (0: off;\n"
		"                          K <= 1000; not in the checkpoint)\n"
		"  --noise SIGMA           stage 2: train the blocks as realised with MZI phase\n"
		"                          noise SIGMA rad (0; may change on resume)\n"
		"  --noise-every S         a new noise draw every S steps (16)\n"
		"  --noise-layers L        the layers --noise perturbs, dense ones through their\n"
		"                          SVD meshes (as 2-7 or all; default: the blocks')\n"
		"  --noise-hot K           stage 2 (with --noise): after each evaluation, K\n"
		"                          chips with that noise; a row one of them moves\n"
		"                          past half its margin is trained from then on and\n"
		"                          weighs 1 + boost (0: off; K <= 100; not in the\n"
		"                          checkpoint)\n"
		"  --boost F               stage 2: rows wrong at the last evaluation weigh\n"
		"                          1 + F times their weight (0; not in the checkpoint)\n"
		"  --ema DECAY             stage 2: also evaluate, every epoch, the exponential\n"
		"                          average of the parameters over the steps (decay per\n"
		"                          step, in [0, 1); 0: off; not in the checkpoint) and\n"
		"                          write it when it has fewer wrong points\n"
		"  --revive FIRST,STEP,SLOPE  on start or resume (with --s-invariant): the\n"
		"                          first-layer units off on every row become, i-th\n"
		"                          of them, SLOPE * (FIRST + i * STEP - S), on below\n"
		"                          that S (not in the checkpoint)\n"
		"  --revive-hidden TOP     on start or resume: each unit of layers 2 to L-1\n"
		"                          off on every row gets its bias raised so that its\n"
		"                          largest pre-activation is TOP (not in the checkpoint)\n"
		"  --lr-first F            the first layer's weights step at F times the\n"
		"                          rate, its biases at the rate (1; F in (0, 10000];\n"
		"                          not in the checkpoint)\n");
}

enum {
	OPT_ARCH = 256, OPT_APPROX, OPT_SEED, OPT_BATCH, OPT_E1, OPT_E2,
	OPT_SLACK, OPT_LR1, OPT_LR2, OPT_LREND, OPT_M1, OPT_M2, OPT_STOP, OPT_PEVERY,
	OPT_PITERS, OPT_EVAL, OPT_CKPT, OPT_CKEVERY, OPT_RESUME, OPT_STOP_AFTER,
	OPT_SINV, OPT_SLOW, OPT_SWEIGHTS, OPT_RETRACT, OPT_GAIN, OPT_NOISE, OPT_NOISE_EVERY,
	OPT_NOISE_LAYERS,
	OPT_KEEP_BEST, OPT_BOOST, OPT_EMA, OPT_REVIVE, OPT_LR_FIRST,
	OPT_REVIVE_HIDDEN, OPT_INIT, OPT_FIRST_AXES, OPT_NOISE_HOT,
	OPT_BEST_NOISE, OPT_BEST_EVERY,
};

static const struct option train_opts[] = {
	{ "members", required_argument, NULL, 'N' },
	{ "bits", required_argument, NULL, 'B' },
	{ "output", required_argument, NULL, 'o' },
	{ "arch", required_argument, NULL, OPT_ARCH },
	{ "approx", required_argument, NULL, OPT_APPROX },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "epochs1", required_argument, NULL, OPT_E1 },
	{ "epochs2", required_argument, NULL, OPT_E2 },
	{ "lr1", required_argument, NULL, OPT_LR1 },
	{ "lr2", required_argument, NULL, OPT_LR2 },
	{ "lr-end", required_argument, NULL, OPT_LREND },
	{ "margin1", required_argument, NULL, OPT_M1 },
	{ "margin2", required_argument, NULL, OPT_M2 },
	{ "stop-margin", required_argument, NULL, OPT_STOP },
	{ "slack", required_argument, NULL, OPT_SLACK },
	{ "proj-every", required_argument, NULL, OPT_PEVERY },
	{ "proj-iters", required_argument, NULL, OPT_PITERS },
	{ "eval-every", required_argument, NULL, OPT_EVAL },
	{ "checkpoint", required_argument, NULL, OPT_CKPT },
	{ "checkpoint-every", required_argument, NULL, OPT_CKEVERY },
	{ "resume", no_argument, NULL, OPT_RESUME },
	{ "keep-best", no_argument, NULL, OPT_KEEP_BEST },
	{ "best-noise", required_argument, NULL, OPT_BEST_NOISE },
	{ "best-every", required_argument, NULL, OPT_BEST_EVERY },
	{ "stop-after", required_argument, NULL, OPT_STOP_AFTER },
	{ "s-invariant", no_argument, NULL, OPT_SINV },
	{ "s-low", required_argument, NULL, OPT_SLOW },
	{ "first-axes", no_argument, NULL, OPT_FIRST_AXES },
	{ "retract-every", required_argument, NULL, OPT_RETRACT },
	{ "input-gain", required_argument, NULL, OPT_GAIN },
	{ "s-weights", required_argument, NULL, OPT_SWEIGHTS },
	{ "noise", required_argument, NULL, OPT_NOISE },
	{ "noise-every", required_argument, NULL, OPT_NOISE_EVERY },
	{ "noise-layers", required_argument, NULL, OPT_NOISE_LAYERS },
	{ "noise-hot", required_argument, NULL, OPT_NOISE_HOT },
	{ "boost", required_argument, NULL, OPT_BOOST },
	{ "ema", required_argument, NULL, OPT_EMA },
	{ "revive", required_argument, NULL, OPT_REVIVE },
	{ "lr-first", required_argument, NULL, OPT_LR_FIRST },
	{ "revive-hidden", required_argument, NULL, OPT_REVIVE_HIDDEN },
	{ "init", required_argument, NULL, OPT_INIT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void train_defaults(struct trainer *tr)
{
	struct optinc_onn_cfg *c = &tr->cfg;

	memset(tr, 0, sizeof(*tr));
	tr->best_wrong = UINT32_MAX;
	tr->best_lost = UINT64_MAX;
	tr->best_every = 1;
	c->bits = 8;
	c->seed = 1;
	c->batch = 1024;
	c->epochs1 = 300;
	c->epochs2 = 300;
	c->proj_every = 10;
	c->proj_iters = 1;
	c->retract_every = 1;
	c->in_gain = 1.0f;
	c->lr1 = 1e-3f;
	c->lr2 = 3e-4f;
	c->lr_end = 0.05f;
	c->margin1 = 0.5f;
	c->margin2 = 0.3f;
	c->stop_margin = 0.1f;
	c->slack = 0.1f;
	c->eval_every = 10;
	tr->ckpt_every = 10;
	tr->noise_every = 16;
	tr->lr_first = 1.0f;
}

/*
 * Store numeric option @opt (@u or @f, as parsed from its value): 1, or 0
 * if it is not one.
 */
static int train_number_set(struct trainer *tr, int opt, unsigned long u,
			    float f, const char *arg)
{
	struct optinc_onn_cfg *c = &tr->cfg;

	switch (opt) {
	case 'N': c->members = u; break;
	case 'B': c->bits = u; break;
	case OPT_SEED: c->seed = strtoull(arg, NULL, 0); break;
	case OPT_BATCH: c->batch = u; break;
	case OPT_E1: c->epochs1 = u; break;
	case OPT_E2: c->epochs2 = u; break;
	case OPT_LR1: c->lr1 = f; break;
	case OPT_LR2: c->lr2 = f; break;
	case OPT_LREND: c->lr_end = f; break;
	case OPT_M1: c->margin1 = f; break;
	case OPT_M2: c->margin2 = f; break;
	case OPT_STOP: c->stop_margin = f; break;
	case OPT_SLACK: c->slack = f; break;
	case OPT_PEVERY: c->proj_every = u; break;
	case OPT_PITERS: c->proj_iters = u; break;
	case OPT_RETRACT: c->retract_every = u; break;
	case OPT_GAIN: c->in_gain = f; break;
	case OPT_SLOW: c->s_invariant = u < 64 ? (int)u : 64; break;
	case OPT_EVAL: c->eval_every = u; break;
	case OPT_CKEVERY: tr->ckpt_every = u; break;
	case OPT_STOP_AFTER: tr->stop_after = u; break;
	case OPT_NOISE: c->noise = f; break;
	case OPT_NOISE_EVERY: tr->noise_every = u; break;
	case OPT_NOISE_HOT: tr->noise_hot = u; break;
	case OPT_BEST_NOISE: tr->best_noise = u; break;
	case OPT_BEST_EVERY: tr->best_every = u; break;
	case OPT_BOOST: tr->boost = f; break;
	case OPT_EMA: tr->ema = f; break;
	case OPT_LR_FIRST: tr->lr_first = f; break;
	case OPT_REVIVE_HIDDEN: tr->revive_hidden = f; break;
	default: return 0;
	}
	return 1;
}

/* Options whose value is a real number (the other numbers are counts). */
static int train_real_opt(int opt)
{
	switch (opt) {
	case OPT_LR1: case OPT_LR2: case OPT_LREND: case OPT_M1: case OPT_M2:
	case OPT_STOP: case OPT_SLACK: case OPT_GAIN: case OPT_NOISE:
	case OPT_BOOST: case OPT_EMA: case OPT_LR_FIRST: case OPT_REVIVE_HIDDEN:
		return 1;
	default:
		return 0;
	}
}

/* "-N", "--lr2": option @opt as the user spells it. */
static void train_opt_name(int opt, char *buf, size_t len)
{
	const struct option *o;

	for (o = train_opts; o->name && o->val != opt; o++)
		;
	if (o->name)
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "-%c", opt);
}

/*
 * A numeric option: 1 when @opt is one and @arg was taken, 0 when @opt is
 * not one, -EINVAL (named on stderr) when @arg is not a number of its
 * kind (a count: digits only, no sign or space) or out of range.
 */
static int train_number_opt(struct trainer *tr, int opt, const char *arg)
{
	char *eu = NULL, *ef = NULL, name[32];
	int real = train_real_opt(opt), range;
	unsigned long u;
	float f;

	if (!arg)
		return 0;
	errno = 0;
	if (real)
		f = strtof(arg, &ef), u = 0;
	else
		u = strtoul(arg, &eu, 0), f = 0;
	/* counts are stored in unsigned int, the seed in 64 bits */
	range = errno == ERANGE || (!real && opt != OPT_SEED && u > UINT_MAX);
	if (!train_number_set(tr, opt, u, f, arg))
		return 0;
	if (!range && (real ? ef != arg && !*ef :
			      isdigit((unsigned char)*arg) && !*eu))
		return 1;
	train_opt_name(opt, name, sizeof(name));
	fprintf(stderr, "optinc-onn: train: %s '%s': %s\n", name, arg,
		range ? "out of range" : real ? "not a number" : "not a count");
	return -EINVAL;
}

/* --revive FIRST,STEP,SLOPE: three numbers, FIRST, STEP >= 0, SLOPE > 0. */
static int train_revive_opt(struct trainer *tr, const char *arg)
{
	const char *p = arg;
	char *end;
	int i;

	for (i = 0; i < 3; i++) {
		errno = 0;
		tr->revive[i] = strtod(p, &end);
		if (end == p || errno || !(tr->revive[i] >= 0) ||
		    isinf(tr->revive[i]) || *end != (i < 2 ? ',' : '\0'))
			break;
		p = end + 1;
	}
	if (i == 3 && tr->revive[2] > 0)
		return 0;
	fprintf(stderr, "optinc-onn: train: --revive '%s': need FIRST,STEP,SLOPE (FIRST, STEP >= 0, SLOPE > 0)\n",
		arg);
	return -EINVAL;
}

static int train_parse(struct trainer *tr, int argc, char **argv,
		       const char **arch, const char **approx)
{
	int opt;

	train_defaults(tr);
	*arch = *approx = NULL;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "N:B:o:h", train_opts, NULL)) != -1) {
		int num = train_number_opt(tr, opt, optarg);

		if (num < 0)
			return num;
		if (num)
			continue;
		switch (opt) {
		case 'o': tr->out = optarg; break;
		case OPT_ARCH: *arch = optarg; break;
		case OPT_APPROX: *approx = optarg; break;
		case OPT_CKPT: tr->ckpt = optarg; break;
		case OPT_RESUME: tr->resume = 1; break;
		case OPT_KEEP_BEST: tr->keep_best = 1; break;
		case OPT_SINV: tr->cfg.s_invariant = -1; break;	/* all: B/2 */
		case OPT_FIRST_AXES: tr->cfg.first_axes = 1; break;
		case OPT_REVIVE:
			if (train_revive_opt(tr, optarg))
				return -EINVAL;
			break;
		case OPT_NOISE_LAYERS: tr->noise_list = optarg; break;
		case OPT_INIT:
			tr->init_rows = !strcmp(optarg, "rows");
			if (!tr->init_rows && strcmp(optarg, "cube")) {
				fprintf(stderr, "optinc-onn: train: --init '%s': need cube or rows\n",
					optarg);
				return -EINVAL;
			}
			break;
		case OPT_SWEIGHTS:
			tr->cfg.s_uniform = !strcmp(optarg, "uniform");
			if (!tr->cfg.s_uniform && strcmp(optarg, "domain")) {
				train_usage(stderr);
				return -EINVAL;
			}
			break;
		case 'h': train_usage(stdout); return 1;
		default: train_usage(stderr); return -EINVAL;
		}
	}
	if (optind != argc || !tr->out || !tr->cfg.members) {
		train_usage(stderr);
		return -EINVAL;
	}
	return 0;
}

/*
 * --noise-layers: the layers (1 = the first; "all") that --noise perturbs;
 * by default the approximated ones, so that runs from before the option
 * draw the same noise.
 */
static int train_noise_layers(struct trainer *tr)
{
	const struct optinc_onn_cfg *c = &tr->cfg;
	unsigned int l;

	if (tr->noise_list &&
	    optinc_onn_parse_layers(tr->noise_list, c->nlayers, &tr->noise_layers)) {
		fprintf(stderr, "optinc-onn: train: --noise-layers '%s': need layers and ranges of 1..%u, as 2-4,7, or all\n",
			tr->noise_list, c->nlayers);
		return -EINVAL;
	}
	for (l = 0; !tr->noise_list && l < c->nlayers; l++)
		tr->noise_layers |= (uint32_t)(c->approx[l] != 0) << l;
	return 0;
}

static int train_check(struct trainer *tr, const char *arch, const char *approx)
{
	struct optinc_onn_cfg *c = &tr->cfg;
	unsigned int l, k, io = c->bits / 2;

	if (c->bits != 8 || c->members < 1 || c->members > 64) {
		fprintf(stderr, "optinc-onn: train: need B = 8 and N in 1..64\n");
		return -EINVAL;
	}
	if (!arch)
		arch = train_default_arch(c->members);
	if (!arch || optinc_onn_parse_arch(arch, c->size, &c->nlayers) ||
	    c->size[0] != io ||
	    c->size[c->nlayers] != io) {
		fprintf(stderr, "optinc-onn: train: bad or missing --arch (widths W0-..-WL, W0 = WL = %u)\n",
			io);
		return -EINVAL;
	}
	if (!approx)
		approx = train_default_approx(c->members);
	if (optinc_onn_parse_approx(approx, c->nlayers, c->approx)) {
		fprintf(stderr, "optinc-onn: train: bad --approx '%s'\n", approx);
		return -EINVAL;
	}
	if (train_noise_layers(tr))
		return -EINVAL;
	for (l = 0; l < c->nlayers; l++) {
		k = optinc_onn_block_k(c->size[l], c->size[l + 1]);
		if (c->approx[l] && (c->size[l] + c->size[l + 1] - k) % k) {
			fprintf(stderr, "optinc-onn: train: layer %u (%ux%u) does not split into %ux%u blocks\n",
				l + 1, c->size[l + 1], c->size[l], k, k);
			return -EINVAL;
		}
	}
	if (c->s_invariant < 0)
		c->s_invariant = (int)io;
	if (c->s_invariant == 1 || c->s_invariant > (int)io) {
		fprintf(stderr, "optinc-onn: train: --s-low %d: need 2 <= K <= %u\n",
			c->s_invariant, io);
		return -EINVAL;
	}
	if (!(tr->lr_first > 0 && tr->lr_first <= 10000)) {
		fprintf(stderr, "optinc-onn: train: --lr-first %g: need 0 < F <= 10000\n",
			tr->lr_first);
		return -EINVAL;
	}
	if (tr->noise_hot > 100 || (tr->noise_hot && !(c->noise > 0))) {
		fprintf(stderr, "optinc-onn: train: --noise-hot %u: need K <= 100, and --noise\n",
			tr->noise_hot);
		return -EINVAL;
	}
	if (tr->best_noise > 1000 ||
	    (tr->best_noise && (!tr->keep_best || !(c->noise > 0)))) {
		fprintf(stderr, "optinc-onn: train: --best-noise %u: need K <= 1000, --keep-best and --noise\n",
			tr->best_noise);
		return -EINVAL;
	}
	if (!tr->best_every) {
		fprintf(stderr, "optinc-onn: train: --best-every 0: need E >= 1\n");
		return -EINVAL;
	}
	if (!(tr->revive_hidden >= 0 && tr->revive_hidden <= 10)) {
		fprintf(stderr, "optinc-onn: train: --revive-hidden %g: need 0 <= TOP <= 10 (0: off)\n",
			tr->revive_hidden);
		return -EINVAL;
	}
	if (tr->revive[2] > 0 && c->s_invariant != (int)io) {
		fprintf(stderr, "optinc-onn: train: --revive needs --s-invariant\n");
		return -EINVAL;
	}
	if ((c->s_invariant || c->first_axes) && c->approx[0]) {
		fprintf(stderr, "optinc-onn: train: --s-invariant, --s-low and --first-axes need a dense first layer\n");
		return -EINVAL;
	}
	if (c->first_axes && c->s_invariant == (int)io) {
		fprintf(stderr, "optinc-onn: train: --first-axes with --s-low %u (--s-invariant): S is the only axis, every row is on it already\n",
			io);
		return -EINVAL;
	}
	if (!c->batch || !c->retract_every || !(c->in_gain > 0) || c->epochs1 + c->epochs2 == 0 ||
	    c->stop_margin > c->margin2 + c->slack || !tr->noise_every ||
	    !(c->noise >= 0 && c->noise < 1) ||
	    !(tr->boost >= 0 && tr->boost <= 1000) ||
	    !(tr->ema >= 0 && tr->ema < 1)) {
		fprintf(stderr, "optinc-onn: train: need --batch, some epochs, stop-margin <= margin2 + slack, --noise in [0, 1), --noise-every >= 1, --boost in [0, 1000] and --ema in [0, 1)\n");
		return -EINVAL;
	}
	return 0;
}

/* Input k is s_k times this: in_gain / (3N). */
static float train_in_scale(const struct optinc_onn_cfg *c)
{
	return optinc_onn_in_scale(c->members) * c->in_gain;
}

/*
 * --revive: a first-layer unit off on every row has no gradient and stays
 * off; aim those at the S where the network needs kinks (section 8 of
 * Documentation/onn.md).
 */
static void train_revive(struct trainer *tr)
{
	const struct optinc_onn_cfg *c = &tr->cfg;
	unsigned int n;

	if (!(tr->revive[2] > 0))
		return;
	/* 3N / G itself, not 1 / train_in_scale(): that is already a rounded
	 * float, and onn.md promises weights computed in double and rounded
	 * once */
	n = optinc_onn_net_revive(&tr->net, &tr->data,
				  3.0 * c->members / c->in_gain, tr->revive[0],
				  tr->revive[1], tr->revive[2]);
	printf("revived %u first-layer units off on every row: on below S = %g + %g i, slope %g\n",
	       n, tr->revive[0], tr->revive[1], tr->revive[2]);
}

/*
 * --revive-hidden: the same for the hidden layers after the first, which
 * N = 8 left mostly off (113 of layer 2's 128 units); they are only
 * turned on where they came closest, since the next layer's column of
 * an orthogonal U cannot be zero (section 8 of Documentation/onn.md).
 */
static void train_revive_hidden(struct trainer *tr)
{
	unsigned int count[OPTINC_ONN_MAX_LAYERS], l, n;

	if (!(tr->revive_hidden > 0))
		return;
	n = optinc_onn_net_revive_hidden(&tr->net, &tr->data,
					 tr->revive_hidden, count);
	printf("revived %u hidden units off on every row (top %g):", n,
	       tr->revive_hidden);
	for (l = 1; l + 1 < tr->net.nl; l++)
		printf(" layer %u: %u", l + 1, count[l]);
	printf("\n");
}

/* --first-axes: "first layer: row o on axis o mod 3 of (S_2, s_2, s_3)" */
static void train_say_axes(const struct optinc_onn_cfg *c)
{
	unsigned int k, low = (unsigned int)c->s_invariant, io = c->bits / 2;

	if (!c->first_axes)
		return;
	printf("first layer: row o on axis o mod %u of (", (low ? 1 : 0) + io - low);
	if (low)
		printf("S_%u, ", low);
	for (k = low; k < io; k++)
		printf("s_%u%s", k, k + 1 < io ? ", " : ")\n");
}

static int train_setup(struct trainer *tr, char *ckpt_buf, size_t len)
{
	unsigned int l;
	int err;

	err = optinc_onn_data_init(&tr->data, tr->cfg.members, tr->cfg.bits,
				   train_in_scale(&tr->cfg),
				   (unsigned int)tr->cfg.s_invariant,
				   tr->cfg.s_uniform);
	if (!err)
		err = optinc_onn_net_alloc(&tr->net, &tr->cfg);
	if (!err && tr->keep_best)
		err = optinc_onn_net_alloc(&tr->best, &tr->cfg);
	if (!err && tr->ema > 0)
		err = optinc_onn_net_alloc(&tr->avg, &tr->cfg);
	if (!err && tr->ema > 0)
		err = optinc_onn_net_alloc(&tr->avg_net, &tr->cfg);
	if (!err && (tr->noise_hot || tr->best_noise))
		err = optinc_onn_net_alloc(&tr->probe, &tr->cfg);
	if (!err && tr->noise_hot) {
		tr->hot = calloc(tr->data.n, 1);
		tr->clean = malloc(sizeof(float) * tr->data.n);
		tr->noisy = malloc(sizeof(float) * tr->data.n);
		if (!tr->hot || !tr->clean || !tr->noisy)
			err = -ENOMEM;
	}
	tr->perm = malloc(sizeof(uint32_t) * tr->data.n);
	tr->tbatch = malloc((size_t)tr->cfg.batch * tr->data.out);
	tr->wbatch = malloc(sizeof(float) * tr->cfg.batch);
	tr->active = malloc(tr->data.n);
	if (err || !tr->perm || !tr->tbatch || !tr->wbatch || !tr->active) {
		fprintf(stderr, "optinc-onn: train: out of memory\n");
		return -ENOMEM;
	}
	optinc_onn_s_dir(tr->data.in, (unsigned int)tr->cfg.s_invariant,
			 tr->sdir);
	optinc_onn_net_init(&tr->net, tr->cfg.seed, tr->sdir,
			    (unsigned int)tr->cfg.s_invariant, tr->cfg.first_axes,
			    tr->cfg.in_gain);
	if (tr->cfg.s_invariant)
		printf("training set: %u rows, one per (S_%d, s_%d..) for %u domain points\n",
		       tr->data.n, tr->cfg.s_invariant, tr->cfg.s_invariant,
		       tr->data.domain);
	train_say_axes(&tr->cfg);
	if (!tr->ckpt) {
		snprintf(ckpt_buf, len, "%s.ckpt", tr->out);
		tr->ckpt = ckpt_buf;
	}
	err = tr->resume ? optinc_onn_ckpt_load(tr->ckpt, &tr->cfg, &tr->net,
						&tr->prog) : -ENOENT;
	if (err == -ENOENT) {
		if (tr->init_rows && tr->cfg.epochs1)
			optinc_onn_net_hinge_rows(&tr->net, &tr->data,
						  tr->cfg.seed);
		train_revive(tr);
		train_revive_hidden(tr);
		return 0;
	}
	if (err)
		return err;
	/* past the start of stage 2, the blocks are trained as Sigma * U */
	for (l = 0; l < tr->net.nl; l++)
		tr->net.l[l].manifold = tr->cfg.approx[l] &&
					tr->prog.epoch > tr->cfg.epochs1;
	printf("resumed from %s after epoch %u\n", tr->ckpt, tr->prog.epoch);
	train_revive(tr);
	train_revive_hidden(tr);
	return 0;
}

static void train_teardown(struct trainer *tr)
{
	optinc_onn_net_free(&tr->net);
	optinc_onn_net_free(&tr->best);
	optinc_onn_net_free(&tr->avg);
	optinc_onn_net_free(&tr->avg_net);
	optinc_onn_net_free(&tr->probe);
	optinc_onn_data_free(&tr->data);
	free(tr->perm);
	free(tr->tbatch);
	free(tr->wbatch);
	free(tr->active);
	free(tr->hot);
	free(tr->clean);
	free(tr->noisy);
}

static int train_finish(struct trainer *tr)
{
	struct optinc_onn_stats ev;
	struct optinc_onn m;
	char err[512];
	int ret;

	optinc_onn_net_eval(&tr->net, &tr->data, &ev, NULL, 0, NULL);
	if (tr->best_lost != UINT64_MAX) {
		printf("keeping epoch %u's %s (exact, margin %+.3f; on the %u chips of --best-noise %llu points lost, worst margin %+.3f)\n",
		       tr->best_epoch, tr->best_avg ? "average" : "network",
		       tr->best_margin, tr->best_noise,
		       (unsigned long long)tr->best_lost, tr->best_chip_margin);
		optinc_onn_net_copy(&tr->net, &tr->best);
		optinc_onn_net_eval(&tr->net, &tr->data, &ev, NULL, 0, NULL);
	} else if (train_better(tr->best_wrong, tr->best_margin, ev.wrong,
				ev.min_margin)) {
		if (ev.wrong)
			printf("keeping epoch %u's %s (%u wrong; the last epoch's: %u)\n",
			       tr->best_epoch, tr->best_avg ? "average" : "network",
			       tr->best_wrong, ev.wrong);
		else
			printf("keeping epoch %u's %s (exact, margin %+.3f; the last epoch's: exact, margin %+.3f)\n",
			       tr->best_epoch, tr->best_avg ? "average" : "network",
			       tr->best_margin, ev.min_margin);
		optinc_onn_net_copy(&tr->net, &tr->best);
		optinc_onn_net_eval(&tr->net, &tr->data, &ev, NULL, 0, NULL);
	} else if (tr->avg_evaluated && tr->avg_ev.wrong < ev.wrong) {
		/* avg_net is still the last epoch's average, as evaluated */
		printf("writing the average (%u wrong; the last epoch's network: %u)\n",
		       tr->avg_ev.wrong, ev.wrong);
		optinc_onn_net_copy(&tr->net, &tr->avg_net);
		ev = tr->avg_ev;
	}
	printf("trained %u epochs in %.1f s (%.3f s/epoch): %u of %u points wrong, margin %+.3f\n",
	       tr->prog.epoch, tr->prog.seconds,
	       tr->prog.epoch ? tr->prog.seconds / tr->prog.epoch : 0.0,
	       ev.wrong, tr->data.domain, ev.min_margin);
	ret = optinc_onn_net_export(&tr->net, &tr->cfg, train_in_scale(&tr->cfg),
				    &m);
	if (ret) {
		fprintf(stderr, "optinc-onn: train: export failed: %s\n",
			strerror(-ret));
		return ret;
	}
	ret = optinc_onn_save(tr->out, &m, err, sizeof(err));
	if (ret)
		fprintf(stderr, "optinc-onn: %s\n", err);
	else
		printf("model written to %s\n", tr->out);
	optinc_onn_free(&m);
	return ret;
}

int optinc_onn_cmd_train(int argc, char **argv)
{
	const char *arch, *approx;
	struct trainer *tr = malloc(sizeof(*tr));
	char ckpt[4096];
	int err;

	if (!tr)
		return -ENOMEM;
	err = train_parse(tr, argc, argv, &arch, &approx);
	if (!err)
		err = train_check(tr, arch, approx);
	if (!err) {
		/* the kernels decide the float results: say which ran */
		printf("BLAS: %s, core %s\n", openblas_get_config(),
		       openblas_get_corename());
		optinc_onn_area_report(stdout, tr->cfg.nlayers, tr->cfg.size,
				       tr->cfg.approx);
		err = train_setup(tr, ckpt, sizeof(ckpt));
	}
	if (!err) {
		train_catch_signals();
		err = train_loop(tr);
	}
	if (!err && train_stop_sig)
		printf("stopped by %s after epoch %u: checkpoint in %s\n",
		       train_stop_sig == SIGINT ? "SIGINT" : "SIGTERM",
		       tr->prog.epoch, tr->ckpt);
	if (!err && !train_stop_sig && tr->stop_after && !tr->prog.done &&
	    tr->prog.epoch < tr->cfg.epochs1 + tr->cfg.epochs2)
		printf("paused after epoch %u: checkpoint in %s\n",
		       tr->prog.epoch, tr->ckpt);
	else if (!err)
		err = train_finish(tr);
	train_teardown(tr);
	free(tr);
	return err > 0 ? 0 : err;
}
