/* model_state.h - the model part of a trainer: which model, its op program
 * (plain SAGA-NN, hoisted and fused unless --fuse off, then after the DKP
 * rewrite), its parameters and Adam state, the DKP choices
 * and the cost model fitted to the first epoch's kernel timings (which
 * decides from then on: dkp.h). A
 * rebuild (DKP switched) makes a new program over the same parameters, so
 * the weights and the optimiser state are kept. */
#ifndef GS_MODEL_STATE_H
#define GS_MODEL_STATE_H

#include "config.h"
#include "engine/program/dkp.h"
#include "engine/program/fuse.h"
#include "engine/program/models/model.h"
#include "engine/exec/params.h"
#include "engine/program/program.h"

#define MODEL_MAX_DKP 64

typedef struct {
    const model_def_t *def;
    model_cfg_t shape;  /* F, C, H, L, K, dropout */
    int ntypes;         /* edge types of the graph */
    int64_t n, m;       /* the graph's vertices and edges (DKP's cost model) */
    program_t prog;
    params_t params;
    int64_t adam_t;     /* optimiser steps taken */
    dkp_choice_t dkp[MODEL_MAX_DKP];
    int ndkp;
    dkp_model_t dkp_model; /* alpha..delta, fitted after the first epoch where kernel times are measured */
    dkp_coef_t dkp_roofline; /* the kernel costs DKP decides with before (or without) a fit: the topology's GPU roofline */
    dkp_shape_t dkp_shape[PROG_MAX_LAYERS]; /* each layer's gather sizes, when dkp_sized */
    int dkp_sized;         /* 0: decided for the whole graph; 1: for dkp_shape (sampled blocks) */
    int fused_kernel;      /* the place has a fused-gather kernel (kops.h) */
    int relu_masks;        /* the place's kernels keep RELU's sign bits (kops.h) */
    fuse_report_t fuse;    /* what the fusion pass did to the program in force */
    double edge_bytes_plain; /* edge tensors and gradients of the plain program, bytes */
    char what[160];        /* the flags that size the model, for the memory rule's message */
    int simulated;         /* --simulate: its tensors are never touched, so the memory rule leaves them out */
    int shared;            /* the in-memory engine runs it: its tensors share buffers (buffer_plan.h) */
    double peak_estimate;  /* the process's peak resident bytes as predicted when the program was built:
                              what it held then (or had held, if more) plus what training it allocates */
} model_state_t;

/* Builds c's model for features F, classes C and the graph's shape, and
 * checks that training it fits the memory rule (membudget.h); nothing of
 * the model's size is allocated yet. */
int model_open(model_state_t *m, const train_cfg_t *c, int64_t feats, int64_t classes, int ntypes, int64_t n,
               int64_t edges, int fused_kernel, int relu_masks, gs_err_t *err);
/* Initialises the parameters (seeded) in kp's memory. */
int model_init_params(model_state_t *m, uint64_t seed, kplace_t kp, gs_err_t *err);
/* Rebuilds the program for DKP mode dkp and fusion fuse; parameters and
 * optimiser state are kept. On failure the previous program stands. */
int model_rebuild(model_state_t *m, dkp_mode_t dkp, int fuse, gs_err_t *err);
/* Re-decides DKP for the gathers' sizes by_layer (NULL: the whole graph).
 * The program is rebuilt only when an order changes (*reordered = 1);
 * otherwise only the choices' sizes and costs are updated. */
int model_resize_dkp(model_state_t *m, dkp_mode_t dkp, int fuse, const dkp_shape_t *by_layer, int *reordered,
                     gs_err_t *err);
/* Fits DKP's cost model to the samples collected (dkp_model) and
 * re-decides every site with it, as model_resize_dkp does for the sizes
 * in force. */
int model_fit_dkp(model_state_t *m, dkp_mode_t dkp, int fuse, int *reordered, gs_err_t *err);
/* One optimiser step with the gradients in params. */
void model_step(model_state_t *m, float lr, float weight_decay);
void model_close(model_state_t *m);

#endif
