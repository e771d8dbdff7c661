#!/usr/bin/env python3
"""Adversarial bad-input sweep of the gpuplan CLI (bad input is normal input).

    tools/bad_input_sweep.py build/dev/src/gpuplan [--quick] [-v]

--quick skips the leaf-by-leaf edits of runs, plans, catalog entries and batch lines; -v prints
every command, not only the ones with a problem.

Writes broken config.json files, catalog overlays, benchmarks, scale files, plan files, batch
lines and edited check/report runs into a temporary directory, runs some 6,000 commands and
prints one line per command that crashes, exits 3 (internal error), prints nan/inf or a
22-digit number it was not given, exits 0 on a case marked bad, or exits 2 with more than one
error line. It exits 1 when any does. Slow (minutes; more under the asan build): a tool for a
hardening pass, not a test. Each bug it found has a golden case in tests/cli instead.
"""
import copy, glob, json, os, re, shlex, subprocess, sys, tempfile

R = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
G = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(R, 'build/dev/src/gpuplan')
D = tempfile.mkdtemp(prefix='gpuplan-sweep-')
FX = D


def leaf_mutations(src, prefix):
    """Every leaf of a JSON document replaced in turn by an odd value (or deleted): file names."""
    paths = []

    def walk(v, p):
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, p + [k])
        elif isinstance(v, list):
            for i, x in enumerate(v[:3]):
                walk(x, p + [i])
        else:
            paths.append(p)
    walk(src, [])
    muts = [None, 'DELETE', -1, 0, 1e308, 'x', [], {}, True, 18446744073709551616, -1e308, 1e-300, 0.5, 3,
            1000000, 4294967296]
    names = []
    for p in paths:
        for m in muts:
            d = copy.deepcopy(src)
            o = d
            for k in p[:-1]:
                o = o[k]
            if m == 'DELETE':
                del o[p[-1]]
            elif o[p[-1]] == m:
                continue
            else:
                o[p[-1]] = m
            name = f'{prefix}{len(names)}.json'
            json.dump(d, open(os.path.join(D, name), 'w'))
            names.append(name)
    return names

# ---- fixtures
base=json.load(open(R+'/tests/fixtures/hf-llama-3.1-8b.json'))
moe=json.load(open(R+'/tests/fixtures/hf-mixtral-8x7b.json'))
def w(name, obj, raw=False):
    p=os.path.join(D,name)
    with open(p,'w') as f:
        f.write(obj if raw else json.dumps(obj))
    return p
cfg_mut = {
 'hidden0': {'hidden_size':0}, 'hiddenneg': {'hidden_size':-4096}, 'hiddenhuge': {'hidden_size':1e308},
 'hidden2p64': {'hidden_size':18446744073709551616}, 'hiddenfloat': {'hidden_size':4096.5},
 'hiddenstr': {'hidden_size':"4096"}, 'hiddennull': {'hidden_size':None},
 'heads0': {'num_attention_heads':0}, 'headsnodiv': {'num_attention_heads':30},
 'kvgt': {'num_key_value_heads':64}, 'kv0': {'num_key_value_heads':0}, 'kvnodiv': {'num_key_value_heads':5},
 'vocab0': {'vocab_size':0}, 'vocabneg': {'vocab_size':-1}, 'vocabhuge': {'vocab_size':10**15},
 'layers0': {'num_hidden_layers':0}, 'layers1e9': {'num_hidden_layers':1000000000}, 'layersneg': {'num_hidden_layers':-32},
 'inter0': {'intermediate_size':0}, 'interhuge': {'intermediate_size':10**12},
 'maxpos0': {'max_position_embeddings':0}, 'maxposneg': {'max_position_embeddings':-1}, 'maxposhuge': {'max_position_embeddings':10**19},
 'headdim0': {'head_dim':0}, 'headdimhuge': {'head_dim':10**9}, 'headdimneg': {'head_dim':-128},
 'torchdtype_weird': {'torch_dtype':'float7'}, 'torchdtype_num': {'torch_dtype':16},
 'quant_empty': {'quantization_config':{}}, 'quant_str': {'quantization_config':'fp8'},
 'quant_nomethod': {'quantization_config':{'bits':4}}, 'quant_gptq_bits0': {'quantization_config':{'quant_method':'gptq','bits':0,'group_size':128}},
 'quant_gptq_bits99': {'quantization_config':{'quant_method':'gptq','bits':99,'group_size':128}},
 'quant_gptq_group0': {'quantization_config':{'quant_method':'gptq','bits':4,'group_size':0}},
 'quant_gptq_groupneg': {'quantization_config':{'quant_method':'gptq','bits':4,'group_size':-1}},
 'quant_awq_groupnull': {'quantization_config':{'quant_method':'awq','bits':4,'group_size':None}},
 'quant_fp8_block0': {'quantization_config':{'quant_method':'fp8','weight_block_size':[0,0]}},
 'quant_fp8_blockneg': {'quantization_config':{'quant_method':'fp8','weight_block_size':[-128,128]}},
 'quant_fp8_blockstr': {'quantization_config':{'quant_method':'fp8','weight_block_size':'128'}},
 'quant_fp8_block1': {'quantization_config':{'quant_method':'fp8','weight_block_size':[128]}},
 'quant_fp8_blockhuge': {'quantization_config':{'quant_method':'fp8','weight_block_size':[1e300,128]}},
 'quant_bnb_weird': {'quantization_config':{'quant_method':'bitsandbytes','load_in_4bit':True,'load_in_8bit':True}},
 'quant_ct_empty': {'quantization_config':{'quant_method':'compressed-tensors','config_groups':{}}},
 'quant_ct_bad': {'quantization_config':{'quant_method':'compressed-tensors','config_groups':{'g0':{'weights':{'num_bits':0,'type':'int'}}}}},
 'quant_ct_bad2': {'quantization_config':{'quant_method':'compressed-tensors','config_groups':{'g0':{'weights':{'num_bits':8,'type':'float','strategy':'group','group_size':0},'targets':['Linear']}}}},
 'quant_ct_bits3': {'quantization_config':{'quant_method':'compressed-tensors','config_groups':{'g0':{'weights':{'num_bits':3,'type':'int','strategy':'channel'},'targets':['Linear']}}}},
 'quant_mxfp4_nomods': {'quantization_config':{'quant_method':'mxfp4','modules_to_not_convert':'x'}},
 'rope_weird': {'rope_scaling':{'factor':-8,'rope_type':'llama3'}}, 'rope_nan': {'rope_scaling':'nan'},
 'sliding_neg': {'sliding_window':-1}, 'sliding_0': {'sliding_window':0}, 'sliding_huge': {'sliding_window':10**20},
 'tie_str': {'tie_word_embeddings':'yes'},
 'arch_empty': {'architectures':[]}, 'arch_num': {'architectures':[1]},
 'model_type_empty': {'model_type':''},
 'text_config_null': {'text_config':None}, 'text_config_str': {'text_config':'x'}, 'text_config_empty': {'text_config':{}},
 'layer_types_short': {'layer_types':['full_attention']}, 'layer_types_bad': {'layer_types':['weird']*32},
 'layer_types_num': {'layer_types':[1]*32},
}
for k,v in cfg_mut.items():
    c=copy.deepcopy(base); c.update(v); w('cfg_'+k+'.json', c)
for k in ['hidden_size','num_attention_heads','num_hidden_layers','vocab_size','intermediate_size','num_key_value_heads','max_position_embeddings']:
    c=copy.deepcopy(base); del c[k]; w('cfg_no_'+k+'.json', c)
moe_mut = {'experts0':{'num_local_experts':0}, 'topk0':{'num_experts_per_tok':0}, 'topkgt':{'num_experts_per_tok':16},
  'expertshuge':{'num_local_experts':10**9}, 'topkneg':{'num_experts_per_tok':-2}, 'moeinter0': {'moe_intermediate_size':0},
  'shared_neg': {'n_shared_experts':-1}}
for k,v in moe_mut.items():
    c=copy.deepcopy(moe); c.update(v); w('moe_'+k+'.json', c)
w('cfg_empty_obj.json', {}); w('cfg_array.json', [1,2]); w('cfg_empty.json', '', raw=True)
w('cfg_nanliteral.json', '{"hidden_size": NaN}', raw=True); w('cfg_bom.json', '\ufeff'+json.dumps(base), raw=True)
w('cfg_binary.bin', '\x00\x01\x02garbage\xff', raw=True)
w('cfg_1e999.json', json.dumps(base).replace('"hidden_size": 4096','"hidden_size": 1e999'), raw=True)
w('cfg_deep.json', '['*100000+']'*100000, raw=True)
w('cfg_trailing.json', json.dumps(base)+' garbage', raw=True)
# catalog overlays
gpu = {"id":"x-gpu","name":"X","vendor":"nvidia","memory_gb":80,"memory_bandwidth_tb_per_s":3.35,
  "dense_tflop_per_s":{"bf16":989,"fp8":1979},"tdp_w":700,"host_link":{"kind":"pcie5-x16","gb_per_s_per_direction":64},"sources":["me"]}
def cat(name, gpus=None, models=None, prices=None, benchmarks=None, raw=None):
    o={"schema_version":1}
    if gpus is not None: o['gpus']=gpus
    if models is not None: o['models']=models
    if prices is not None: o['prices']=prices
    if benchmarks is not None: o['benchmarks']=benchmarks
    return w('cat_'+name+'.json', o)
cat('ok_gpu', gpus=[gpu])
for k,v in {'bw0':{'memory_bandwidth_tb_per_s':0},'bwhuge':{'memory_bandwidth_tb_per_s':1e308},'mem1e308':{'memory_gb':1e308},
  'memtiny':{'memory_gb':1e-300},'tdpneg':{'tdp_w':-1},'tdp0':{'tdp_w':0},'tflops0':{'dense_tflop_per_s':{'bf16':0}},
  'tflopshuge':{'dense_tflop_per_s':{'bf16':1e308,'fp8':1e308}}, 'tflopsneg':{'dense_tflop_per_s':{'bf16':-1}},
  'idempty':{'id':''},'idspace':{'id':'  '}, 'scaleup0':{'scale_up':{'kind':'nvlink','gb_per_s_per_direction':0,'domain_gpus':8}},
  'scaleupdom0':{'scale_up':{'kind':'nvlink','gb_per_s_per_direction':450,'domain_gpus':0}},
  'hostlink0':{'host_link':{'kind':'pcie','gb_per_s_per_direction':0}},
  'mig_bad':{'mig_profiles':[{'name':'1g.10gb','memory_eighths':0,'compute_slices':0,'max_instances':0}]},
  'mig_huge':{'mig_profiles':[{'name':'1g.10gb','memory_eighths':100,'compute_slices':1,'max_instances':7}]},
  'smcount0':{'sm_count':0}, 'alias_dup':{'aliases':['h100']}, 'usable0':{'usable_memory_mib':0},
  'cuda_gt':{'usable_memory_mib':81559,'cuda_memory_mib':999999}}.items():
    g=copy.deepcopy(gpu); g.update(v); cat('gpu_'+k, gpus=[g])
cat('h100_bw0', gpus=[{'id':'h100-sxm','memory_bandwidth_tb_per_s':0}])
cat('h100_mem_tiny', gpus=[{'id':'h100-sxm','memory_gb':0.001}])
cat('h100_tflops_null', gpus=[{'id':'h100-sxm','dense_tflop_per_s':None}])
cat('h100_scaleup_null', gpus=[{'id':'h100-sxm','scale_up':None}])
cat('h100_bf16_tiny', gpus=[{'id':'h100-sxm','dense_tflop_per_s':{'bf16':1e-300,'fp8':1e-300}}])
cat('h100_tdp_null', gpus=[{'id':'h100-sxm','tdp_w':None}])
mdl = {"id":"x-model","name":"X","config":{"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":14336,"vocab_size":128256,"max_position_embeddings":8192},"sources":["me"]}
cat('ok_model', models=[mdl])
for k,v in {'hidden0':{'hidden_size':0},'layers1e9':{'num_hidden_layers':10**9},'vocab0':{'vocab_size':0},'kvgt':{'num_key_value_heads':64},
   'headsnodiv':{'num_attention_heads':30},'maxpos0':{'max_position_embeddings':0},'hiddenhuge':{'hidden_size':10**15}, 'inter_neg':{'intermediate_size':-1}}.items():
    m=copy.deepcopy(mdl); m['config'].update(v); cat('model_'+k, models=[m])
m=copy.deepcopy(mdl); m['config']={}; cat('model_cfgempty', models=[m])
m=copy.deepcopy(mdl); m['shipped_weights']={'default':'fp7','source':'x'}; cat('model_shipped_bad', models=[m])
m=copy.deepcopy(mdl); m['shipped_weights']={'default':'','source':'x'}; cat('model_shipped_empty', models=[m])
m=copy.deepcopy(mdl); m['config']['quantization_config']={'quant_method':'gptq','bits':0}; cat('model_quant_bad', models=[m])
pr={"provider":"me","gpu":"h100-sxm","mode":"on-demand","usd_per_gpu_hour":2.0,"date":"2026-05-15","sources":["me"]}
cat('ok_price', prices=[pr])
for k,v in {'usd0':{'usd_per_gpu_hour':0},'usdhuge':{'usd_per_gpu_hour':1e308},'usdtiny':{'usd_per_gpu_hour':1e-300},'date_bad':{'date':'2026-13-45'},
  'date_empty':{'date':''},'gpu_unknown':{'gpu':'h1000'},'provider_empty':{'provider':''},'mode_bad':{'mode':'free'},'region_num':{'region':5},
  'date_old':{'date':'1900-01-01'}, 'date_feb30':{'date':'2026-02-30'}, 'usdstr':{'usd_per_gpu_hour':'2'}}.items():
    p=copy.deepcopy(pr); p.update(v); cat('price_'+k, prices=[p])
bm={"id":"b1","model":"llama-3.1-70b","gpu":"h200-sxm","gpus":1,"weights_dtype":"fp8","kv_dtype":"fp8","input_tokens":1000,"output_tokens":1000,"scenario":"max-load","output_tokens_per_s":2800,"sources":["me"]}
w('bench_ok.json', {"schema_version":1,"benchmarks":[bm]})
for k,v in {'tps0':{'output_tokens_per_s':0},'tpshuge':{'output_tokens_per_s':1e308},'tpsneg':{'output_tokens_per_s':-5},'tpstiny':{'output_tokens_per_s':1e-300},
  'in0':{'input_tokens':0},'out0':{'output_tokens':0},'inhuge':{'input_tokens':10**15},'outhuge':{'output_tokens':10**15},'gpus0':{'gpus':0},'gpushuge':{'gpus':10**9},
  'model_unknown':{'model':'llama-3.1-7b'},'gpu_unknown':{'gpu':'h2000'},'tp3':{'tp':3},'tp0':{'tp':0},'tpbig':{'tp':16},
  'kv_bad':{'kv_dtype':'fp7'},'w_bad':{'weights_dtype':'fp7'},'scenario_bad':{'scenario':'fast'},'conc0':{'concurrency':0},
  'conchuge':{'concurrency':10**12},'ttft_neg':{'ttft_ms':-1},'itl_0':{'itl_ms':0}, 'itl_huge':{'itl_ms':1e308},
  'id_empty':{'id':''}, 'nosources':{'sources':[]}, 'pp0':{'pp':0}, 'ep_huge':{'ep':10**6}, 'tps_str':{'output_tokens_per_s':'2800'}}.items():
    b=copy.deepcopy(bm); b.update(v); w('bench_'+k+'.json', {"schema_version":1,"benchmarks":[b]})
w('bench_empty_list.json', {"schema_version":1,"benchmarks":[]})
w('bench_none.json', {"schema_version":1})
w('bench_two_same.json', {"schema_version":1,"benchmarks":[bm,bm]})
# scale measured files
def wt(name, text): 
    p=os.path.join(D,name); open(p,'w').write(text); return p
wt('scale_ok.csv','num_gpus,samples_per_s\n1,100\n2,190\n4,350\n')
wt('scale_nan.csv','num_gpus,samples_per_s\n1,nan\n2,190\n')
wt('scale_inf.csv','num_gpus,samples_per_s\n1,inf\n2,190\n')
wt('scale_huge.csv','num_gpus,samples_per_s\n1,1e308\n2,1.7e308\n4,1e308\n')
wt('scale_tiny.csv','num_gpus,samples_per_s\n1,1e-300\n2,2e-300\n4,3e-300\n')
wt('scale_gpus0.csv','num_gpus,samples_per_s\n0,100\n2,190\n')
wt('scale_gpushuge.csv','num_gpus,samples_per_s\n1,100\n18446744073709551617,190\n')
wt('scale_gpusfrac.csv','num_gpus,samples_per_s\n1.5,100\n2,190\n')
wt('scale_header_only.csv','num_gpus,samples_per_s\n')
wt('scale_empty.csv','')
wt('scale_cols.csv','num_gpus,samples_per_s\n1,100,5\n2\n')
wt('scale_neg.csv','num_gpus,samples_per_s\n1,-100\n2,190\n')
wt('scale_same.csv','num_gpus,samples_per_s\n2,100\n2,100\n')
wt('scale_crlf.csv','num_gpus,samples_per_s\r\n1,100\r\n2,190\r\n')
wt('scale_bad.json','{"points": [{"gpus": 1, "throughput": "x"}]}')
wt('scale_weird.json','[{"gpus": 1, "throughput": 1e308}, {"gpus": 2, "throughput": 1e308}]')
wt('scale_weird2.json','{}')
wt('scale_weird3.json','[]')
wt('scale_weird4.json','[1,2]')
# plan files
plan_ok=json.load(open(R+'/examples/plans/llama-3.1-70b-chat.json'))
def plan(name, mut_dep=None, top=None):
    p=copy.deepcopy(plan_ok)
    if mut_dep: p['deployments'][0].update(mut_dep)
    if top: p.update(top)
    return w('plan_'+name+'.json', p)
for k,v in {'gpus0':{'gpus':0},'gpushuge':{'gpus':10**12},'input0':{'input':0},'inputhuge':{'input':10**15},'conc_neg':{'concurrency':-1},
   'conc_float':{'concurrency':4.5},'model_unknown':{'model':'llama-3.1-7b'},'gpu_unknown':{'gpu':'h1000'},'name_empty':{'name':''},
   'expect_empty':{'expect':{}},'expect_str':{'expect':'fits'},'expect_nan':{'expect':{'max_itl_ms':1e308}},'expect_neg':{'expect':{'max_itl_ms':-1}},
   'expect_unknown':{'expect':{'max_lol':1}},'engine_bad':{'engine':'vllmm'},'provider_bad':{'provider':'awz'},'mode_bad':{'mode':'free'},
   'wd_bad':{'weights-dtype':'fp7'},'target_huge':{'target-output-tokens-per-s':1e308},'target_tiny':{'target-output-tokens-per-s':1e-300},
   'mc_missing':{'model-config':'nonexist.json'},'reserve_bad':{'reserve':'-1GB'},'reserve_huge':{'reserve':'1e999GB'},
   'usd_huge':{'usd-per-gpu-hour':1e308}, 'usd_tiny':{'usd-per-gpu-hour':1e-300}, 'util_nan':{'gpu-memory-utilization':'nan'},
   'min_seq_huge':{'expect':{'min_concurrent_sequences':10**30}}, 'monthly_tiny':{'expect':{'max_monthly_usd':1e-300}}}.items():
    plan(k, v)
plan('deps_empty', top={'deployments':[]}); plan('deps_obj', top={'deployments':{}}); plan('schema2', top={'schema_version':2})
p=copy.deepcopy(plan_ok); p['deployments'][1]['name']=p['deployments'][0]['name']; w('plan_dupname.json', p)
w('plan_array.json',[1])
# diff inputs
w('diff_empty.json', {}); w('diff_arr.json', []); w('diff_garbage.json','{"deployments": 5}')

# ---- commands
os.environ['GPUPLAN_CATALOG'] = ''
os.environ['GPUPLAN_TODAY'] = '2026-12-01'
os.chdir(FX)
cases = []  # (expect, args)
def bad(a): cases.append(('bad', a))
def any_(a): cases.append(('any', a))
M = '--model llama-3.1-70b --gpu h100'
# files as model configs
for f in sorted(glob.glob('cfg_*') + glob.glob('moe_*')):
    for sub in ['fit', 'perf', 'cost --usd-per-gpu-hour 2', 'scale --gpu h100', 'train']:
        any_(f'{sub} --model-config {f} --gpu h100 --gpus 8')
    any_(f'fit --model-config {f} --gpu h100 --format json')
    any_(f'perf --model-config {f} --gpu h100 --gpus 8 --format csv')
for f in ['nonexist.json', '.', '/dev/null', '/proc/self/mem', '/root', '']:
    bad(f'fit --model-config "{f}" --gpu h100'); bad(f'train --model-config "{f}" --gpu h100')
# catalogs
for f in sorted(glob.glob('cat_*')):
    any_(f'catalog validate {f}')
    any_(f'fit --catalog {f} --model llama-3.1-8b --gpu h100')
    any_(f'fit --catalog {f} --model x-model --gpu x-gpu')
    any_(f'perf --catalog {f} --model x-model --gpu x-gpu --format json')
    any_(f'perf --catalog {f} --model llama-3.1-8b --gpu h100 --gpus 8 --format json')
    any_(f'cost --catalog {f} --model llama-3.1-8b --gpu h100 --provider me')
    any_(f'compare --catalog {f} --model llama-3.1-8b --gpu h100 --gpu x-gpu --price x-gpu=2')
    any_(f'train --catalog {f} --model llama-3.1-8b --gpu h100 --gpus 8 --tokens 1B --format json')
    any_(f'scale --catalog {f} --model llama-3.1-8b --gpu x-gpu --up-to 16')
    any_(f'catalog --help')
    any_(f'catalog show x-gpu --catalog {f}')
    any_(f'catalog show x-model --catalog {f}')
    any_(f'catalog prices --catalog {f}')
for f in ['nonexist.json', '.', '/dev/null', 'cfg_binary.bin', 'cfg_deep.json', 'cfg_trailing.json', 'cfg_nanliteral.json']:
    bad(f'fit --catalog {f} {M}'); bad(f'catalog validate {f}')
# benchmarks
for f in sorted(glob.glob('bench_*')):
    for extra in ['', '--calibrate', '--cross-validate', '--format json', '--format csv']:
        any_(f'validate --benchmarks {f} {extra}')
    any_(f'validate --catalog {f}')
for f in ['nonexist.json', '.', '/dev/null', 'cfg_deep.json']:
    bad(f'validate --benchmarks {f}')
# scale files
for f in sorted(glob.glob('scale_*')):
    for extra in ['', '--format json', '--gpu h100 --provider aws', '--usd-per-gpu-hour 2 --predict-at 64', '--up-to 65536']:
        any_(f'scale --measured-file {f} {extra}')
for m in ['1=100', '1=nan', '1=inf', '1=1e308,2=1e308', '0=5', '1=-5', '1=100,1=100', 'x', '=', '1=', '=5', '1=100,2=1e-320',
          '18446744073709551616=5,2=4', '1=100,2=200,4=1e999', '1:100', '1=100 2=190', '1=1e308,2=1.7976931348623157e308,4=1.7e308']:
    bad(f'scale --measured "{m}"'); any_(f'scale --measured "{m}" --measured 2=190 --measured 4=300')
# plan files
for f in sorted(glob.glob('plan_*')):
    for sub in ['check', 'report', 'report --format html', 'report --format json', 'check --format json', 'check --format csv']:
        any_(f'{sub} {f}')
for f in ['nonexist.json', '.', '/dev/null', 'cfg_binary.bin']:
    bad(f'check {f}'); bad(f'report {f}'); bad(f'diff {f} {f}')
for f in sorted(glob.glob('diff_*')):
    bad(f'diff {f} {f}'); bad(f'report {R}/examples/plans/llama-3.1-70b-chat.json --baseline {f}')
# flags: numbers
nums = ['0', '-1', 'nan', 'NaN', 'inf', '-inf', '1e308', '1e999', '18446744073709551616', '18446744073709551615', '4294967296', '1e-320',
        '0x10', '', ' ', '1.5', '1,5', '+5', '1e3', '00001', '9' * 400, '5abc', '1k', '1K', '1M', '1G', '1T', '-0', '0.0']
uint_flags = {'fit': ['--gpus', '--tp', '--pp', '--ep', '--context', '--concurrency', '--block-size', '--prefill-chunk', '--max-num-seqs', '--nodes'],
              'perf': ['--input', '--output', '--batch', '--max-batch', '--concurrency'],
              'train': ['--micro-batch', '--seq', '--global-batch-tokens', '--lora-rank', '--scale', '--cp', '--vpp'],
              'plan': ['--top', '--max-gpus-per-replica', '--gpus-per-node', '--concurrency']}
real_flags = {'fit': ['--gpu-memory-utilization', '--mem-fraction-static'],
              'perf': ['--bandwidth-efficiency', '--step-overhead-ms', '--layer-overhead-us', '--network-gbit-per-s', '--target-output-tokens-per-s'],
              'cost': ['--usd-per-gpu-hour', '--tokens-per-second', '--capex-usd-per-gpu', '--amortization-years', '--ops-share', '--utilization',
                       '--storage-usd-per-month', '--failed-run-overhead', '--pue', '--usd-per-kwh', '--max-usd-per-mtok'],
              'plan': ['--max-itl-ms', '--max-ttft-ms', '--min-tokens-per-s-per-user', '--target-output-tokens-per-s'],
              'scale': ['--usd-per-gpu-hour', '--min-marginal-efficiency', '--max-cost-increase']}
pre = {'fit': f'fit {M} --engine vllm', 'perf': f'perf {M} --gpus 8', 'train': 'train --model llama-3.1-8b --gpu h100 --gpus 8 --tokens 1B',
       'plan': 'plan --model llama-3.1-8b --gpu h100 --provider aws', 'cost': f'cost {M} --gpus 8 --usd-per-gpu-hour 2',
       'scale': 'scale --measured 1=100,2=190,4=350'}
for sub, fl in list(uint_flags.items()) + list(real_flags.items()):
    for f in fl:
        for n in nums:
            any_(f'{pre[sub]} {f} {shlex.quote(n)}')
        any_(f'{pre[sub]} {f}')
# reserve / units / names
for r in ['80GiB', '-1GB', '1e999GB', '0', '0GB', 'nanGB', 'infGiB', '1e308GB', '1.5', 'GB', '1.5gib', '1.5 GiB', '100GB', '79GB', '1e-300GB', '18446744073709551616B', '1TB', '1PB', '5XB']:
    any_(f'fit {M} --reserve {shlex.quote(r)}'); any_(f'perf {M} --gpus 8 --reserve {shlex.quote(r)} --format json')
for p in ['744B', '0', '0B', '-7B', '1e999B', 'nanB', 'infB', '1e308', '1e30B', '7', '7b', '7M', '1.5T', 'B', '', '18446744073709551616', '1e-300B', '7 B', '7BB']:
    any_(f'fit --params {shlex.quote(p)} --gpu h100'); any_(f'fit --params {shlex.quote(p)} --gpu h100 --format json')
for t in ['20B', '0', '-1B', '1e999', 'nan', 'inf', '1e308', '1e30T', '1e-300', '', 'abc', '2e10', '18446744073709551616']:
    any_(f'train --model llama-3.1-8b --gpu h100 --gpus 8 --tokens {shlex.quote(t)} --provider aws')
for n in ['h100x', 'H100', 'a100', 'nvidia', '', ' ', 'h', 'a', 'x' * 5000, '../../etc/passwd', 'h100-sxm\n', 'ｈ100']:
    any_(f'fit --model llama-3.1-8b --gpu {shlex.quote(n)}'); any_(f'fit --model {shlex.quote(n)} --gpu h100')
    any_(f'plan --model llama-3.1-8b --gpu {shlex.quote(n)}'); any_(f'catalog show {shlex.quote(n)}')
for mig in ['1g.10gb', '7g.80gb', '1g.10gb+me', 'x', '', '0g.0gb', '1g.18gb']:
    any_(f'fit --model llama-3.1-8b --gpu h100 --mig {shlex.quote(mig)}'); any_(f'perf --model llama-3.1-8b --gpu h100 --mig {shlex.quote(mig)}')
    any_(f'cost --model llama-3.1-8b --gpu h100 --mig {shlex.quote(mig)} --usd-per-gpu-hour 1'); any_(f'fit --model llama-3.1-8b --gpu l40s --mig {shlex.quote(mig)}')
for d in ['fp7', '', 'FP8', 'int4-g0', 'int4-g-1', 'int4-g99999999999999999999', 'fp8-block0', 'fp8-block-1', 'int4-g128-zp-zp', 'nf4', 'mxfp4', 'fp4', 'int3', 'fp32', 'int4-g7']:
    for fl in ['--weights-dtype', '--kv-dtype', '--experts-dtype', '--attention-dtype', '--embeddings-dtype']:
        any_(f'fit --model mixtral-8x7b --gpu h100 {fl} {shlex.quote(d)}')
    any_(f'plan --model llama-3.1-8b --gpu h100 --weights-dtype {shlex.quote(d)}')
    any_(f'perf --model mixtral-8x7b --gpu h100 --gpus 2 --weights-dtype {shlex.quote(d)} --format json')
for pr in ['h100=2', 'h100=0', 'h100=-1', 'h100=nan', 'h100=inf', 'h100=1e308', 'h100=1e-300', 'h1000=2', '=2', 'h100=', 'h100', 'h100=2=3', 'h100=2,h200=3', 'h100-sxm=0x10']:
    any_(f'cost {M} --gpus 8 --price {shlex.quote(pr)}'); any_(f'compare --model llama-3.1-70b --gpu h100 --gpu h200 --price {shlex.quote(pr)}')
    any_(f'plan --model llama-3.1-8b --gpu h100 --price {shlex.quote(pr)}')
for ms in ['h100=1000', 'h100=0', 'h100=nan', 'h100=1e308', 'h100=1e-300', 'h100=-5', 'x=5', 'h100', 'h100=inf']:
    any_(f'compare --model llama-3.1-70b --gpu h100 --gpu h200 --measured {shlex.quote(ms)}')
# odd combos
for a in [f'fit {M} --context 4294967296', f'fit {M} --context 1 --block-size 65536', f'fit {M} --concurrency 100000000 --context 4294967296',
          f'perf {M} --input 4294967296 --output 4294967296', f'perf {M} --batch 1048576 --gpus 8', f'perf {M} --gpus 65536',
          f'perf {M} --nodes 8192 --gpus-per-node 72', f'fit {M} --nodes 8192 --gpus-per-node 72', f'cost {M} --nodes 8192 --gpus-per-node 72 --usd-per-gpu-hour 1e9',
          f'cost {M} --gpus 8 --usd-per-gpu-hour 1e308', f'cost {M} --gpus 8 --usd-per-gpu-hour 1e-300', f'cost {M} --gpus 8 --tokens-per-second 1e-300 --usd-per-gpu-hour 1e308',
          f'cost {M} --gpus 8 --tokens-per-second 1e308 --usd-per-gpu-hour 1e-300', f'cost {M} --gpus 8 --capex-usd-per-gpu 1e308 --usd-per-kwh 100',
          f'cost {M} --gpus 8 --capex-usd-per-gpu 1e-300', f'cost {M} --gpus 8 --target-output-tokens-per-s 1e308 --usd-per-gpu-hour 2',
          f'cost {M} --gpus 8 --target-output-tokens-per-s 1e-300 --usd-per-gpu-hour 2', f'perf {M} --target-output-tokens-per-s 1e308',
          f'perf {M} --target-output-tokens-per-s 1e-300', 'plan --model llama-3.1-8b --target-output-tokens-per-s 1e308 --gpu h100 --provider aws',
          'plan --model llama-3.1-8b --target-output-tokens-per-s 1e-300 --gpu h100 --provider aws', 'plan --model llama-3.1-8b --max-itl-ms 1e-300 --gpu h100',
          'plan --model llama-3.1-8b --max-itl-ms 1e308 --gpu h100 --provider aws', 'plan --model llama-3.1-8b --gpu h100 --price h100=1e-300',
          'plan --model llama-3.1-8b --gpu h100 --price h100=1e300', 'plan --model llama-3.1-8b --gpu h100 --provider aws --storage-usd-per-month 1e9 --egress-usd-per-month 1e9',
          'plan --model llama-3.1-8b --model llama-3.1-8b --gpu h100', 'plan --model llama-3.1-8b --gpu h100 --gpu h100', 'plan --model llama-3.1-8b --gpu h100 --region zz',
          'plan --model llama-3.1-8b --gpu h100 --term 99y', 'plan --model llama-3.1-8b --gpu h100 --emit vllm --provider aws --input 4294967296',
          'train --model llama-3.1-405b --gpu h100 --gpus 65536 --tp 8 --pp 16 --tokens 1e30T', 'train --model llama-3.1-8b --gpu h100 --seq 4294967296',
          'train --model llama-3.1-8b --gpu h100 --seq 18446744073709551615', 'train --model llama-3.1-8b --gpu h100 --global-batch-tokens 18446744073709551615',
          'train --model llama-3.1-8b --gpu h100 --micro-batch 1048576 --seq 4294967295', 'train --model llama-3.1-8b --gpu h100 --scale 1,65536 --tokens 1T',
          'train --model llama-3.1-8b --gpu h100 --gpus 8 --tp 8 --vpp 65536 --pp 2', 'train --model llama-3.1-8b --gpu h100 --gpus 7',
          'train --model mixtral-8x7b --gpu h100 --gpus 8 --ep 16', 'train --model llama-3.1-8b --gpu h100 --gpus 8 --cp 65536',
          'scale --model llama-3.1-8b --gpu h100 --up-to 65536', 'scale --model llama-3.1-405b --gpu h100 --up-to 65536 --input 4294967296',
          'scale --measured 1=100,2=190 --predict-at 65536', 'scale --measured 1=100,2=1e308', 'scale --measured 1=1e-300,2=1e-300',
          'scale --measured 1=100,2=200 --usd-per-gpu-hour 1e308', 'scale --measured 1=100,2=200 --usd-per-gpu-hour 1e-300',
          'compare --model llama-3.1-70b --gpu h100 --gpu h200 --provider aws --utilization 0.01 --failed-run-overhead 10',
          'compare --model llama-3.1-8b --gpu h100 --gpu h200 --gpus 65536', 'compare --model llama-3.1-8b --gpu h100 --gpu h200 --input 4294967296',
          'fit --model deepseek-v3 --gpu h100 --gpus 65536', 'perf --model deepseek-v3 --gpu h100 --gpus 65536 --ep 65536',
          'fit --params 1e15B --gpu h100 --gpus 65536', 'perf --model llama-3.1-8b --gpu h100 --step-overhead-ms 0 --batch 1',
          'perf --model llama-3.1-8b --gpu h100 --layer-overhead-us 100000 --batch 1',
          'perf --model llama-3.1-8b --gpu h100 --step-overhead-ms 10000 --batch 1048576', 'batch /dev/null', 'batch .', 'batch nonexist.jsonl',
          'diff', 'report', 'check', 'catalog show', 'catalog', 'catalog validate', '', '--version', 'fit', 'perf --gpu h100',
          f'fit {M} --format yaml', f'fit {M} --units tib', f'fit {M} --engine sglang --gpu-memory-utilization 0.5',
          f'fit {M} --engine-version 0.10.1', f'fit {M} --engine vllm --engine-version x', f'fit {M} --engine vllm --engine-version 99999999999999999999.1',
          f'fit {M} --engine vllm --engine-version 0.-1', f'fit {M} --engine vllm --engine-version ""', f'fit {M} --engine vllm --engine-version 1..2',
          f'cost {M} --provider aws --mode spot --term 1y', f'cost {M} --provider aws --region ""', f'cost {M} --provider "" ',
         ]:
    any_(a)
# batch lines
blines = ['{"command":"fit","model":"llama-3.1-70b","gpu":"h100","context":1e308}', '{"command":"fit","model":"llama-3.1-70b","gpu":"h100","context":"1e999"}',
   '{"command":"fit","model":"llama-3.1-70b","gpu":"h100","gpus":18446744073709551616}', '{"command":"fit","model":"llama-3.1-70b","gpu":"h100","gpus":-0}',
   '{"command":"perf","model":"llama-3.1-70b","gpu":"h100","bandwidth-efficiency":"nan"}', '{"command":"perf","model":"llama-3.1-70b","gpu":"h100","batch":"1,2,0"}',
   '{"command":"cost","model":"llama-3.1-70b","gpu":"h100","usd-per-gpu-hour":1e308,"gpus":8}', '{"command":"cost","model":"llama-3.1-70b","gpu":"h100","usd-per-gpu-hour":1e-300,"gpus":8}',
   '{"command":"fit","model-config":"cfg_hidden0.json","gpu":"h100"}', '{"command":"fit","model-config":"/etc/passwd","gpu":"h100"}',
   '{"command":"fit","model":"llama-3.1-70b","gpu":"h100","reserve":"-1GB"}', '{"command":"fit","model":"llama-3.1-70b","gpu":"h100","reserve":"1e999GB"}',
   '{"command":"fit","params":"1e999B","gpu":"h100"}', '{"command":"perf","model":"llama-3.1-70b","gpu":"h100","target-output-tokens-per-s":1e-300}',
   '{"command":"perf","model":"llama-3.1-70b","gpu":"h100","concurrency":1e8}', '{"command":"fit","model":"llama-3.1-70b","gpu":"h100","context":4294967296.5}',
   '{"command":"fit","model":"llama-3.1-70b","gpu":"h100","context":1e-320}', '{"command":"fit","model":"llama-3.1-70b","gpu":"h100","gpu-memory-utilization":1e-320}',
   '\ufeff{"command":"fit","model":"llama-3.1-70b","gpu":"h100"}', '{"command":"fit","model":"\\u0000","gpu":"h100"}', '{"command":"fit","model":"llama-3.1-70b","gpu":"h100","id":{"a":1}}',
   '{"command":"fit","model":"llama-3.1-70b","gpu":"h100","units":"tib"}', '{"command":"fit","model":"llama-3.1-70b","gpu":"h100","mig":"1g.10gb","tp":2}',
   '{"command":"cost","model":"llama-3.1-70b","gpu":"h100","price":["h100=nan"]}', '{"command":"cost","model":"llama-3.1-70b","gpu":"h100","price":"h100=1e-300","gpus":8}']
open('batch_sweep.jsonl', 'w').write('\n'.join(blines) + '\n')
any_('batch batch_sweep.jsonl')
for l in blines:
    open('batch_one.jsonl', 'w').write(l + '\n')  # not used concurrently; single-line runs below
cases_batch = blines

# Edited runs for diff and report --baseline: every leaf of a real 'check --format json'.
if '--quick' not in sys.argv:
    run_json = subprocess.run([G, 'check', '--format', 'json', R + '/examples/plans/llama-3.1-70b-chat.json'],
                              capture_output=True, text=True).stdout
    open('run.json', 'w').write(run_json)
    for f in leaf_mutations(json.loads(run_json), 'run_mut_'):
        any_(f'diff run.json {f}')
        any_(f'diff {f} run.json --format json')
    # Plan files, each leaf of the shipped examples (the config.json one keeps its configs/ folder).
    os.makedirs('configs', exist_ok=True)
    open('configs/llama-3.1-8b-config.json', 'w').write(open(R + '/examples/plans/configs/llama-3.1-8b-config.json').read())
    for plan in ['own-checkpoint', 'llama-3.1-70b-chat', 'llama-3.1-8b-target-load']:
        for f in leaf_mutations(json.load(open(f'{R}/examples/plans/{plan}.json')), f'plan_mut_{plan}_'):
            any_(f'check {f}')
    # Catalog overlays: each leaf of a real GPU and real model entries under new ids.
    gpu_entry = dict(next(x for x in json.load(open(R + '/data/gpus.json'))['gpus'] if x['id'] == 'h100-sxm'))
    gpu_entry.update(id='zz-gpu', aliases=['zzg'])
    for f in leaf_mutations({'schema_version': 1, 'gpus': [gpu_entry]}, 'cat_mut_gpu_'):
        any_(f'fit --catalog {f} --model llama-3.1-8b --gpu zz-gpu --mig 1g.10gb')
        any_(f'perf --catalog {f} --model llama-3.1-70b --gpu zz-gpu --gpus 16 --format json')
        any_(f'compare --catalog {f} --model llama-3.1-8b --gpu zz-gpu --gpu h100 --price zz-gpu=2 --price h100=2')
        any_(f'train --catalog {f} --model llama-3.1-8b --gpu zz-gpu --gpus 8 --tokens 1B')
    for mid in ['llama-3.1-70b', 'deepseek-v3', 'gpt-oss-120b']:
        entry = dict(next(x for x in json.load(open(R + '/data/models.json'))['models'] if x['id'] == mid))
        entry['id'] = 'zz-' + mid
        entry.pop('aliases', None)
        for f in leaf_mutations({'schema_version': 1, 'models': [entry]}, f'cat_mut_{mid}_'):
            any_(f'fit --catalog {f} --model zz-{mid} --gpu h200 --gpus 8 --format json')
            any_(f'perf --catalog {f} --model zz-{mid} --gpu h200 --gpus 8')
            any_(f'train --catalog {f} --model zz-{mid} --gpu h200 --gpus 8 --tokens 1B')
    # Batch: every field of a few good requests replaced by odd values, one file.
    good = [{"command": "fit", "model": "llama-3.1-70b", "gpu": "h100", "gpus": 8, "context": "32k", "concurrency": 16,
             "engine": "vllm", "weights_dtype": "fp8", "kv_dtype": "fp8", "block_size": 16, "prefill_chunk": 8192,
             "gpu_memory_utilization": 0.9},
            {"command": "perf", "model": "mixtral-8x7b", "gpu": "h200", "gpus": 8, "tp": 2, "ep": 4, "input": 1024,
             "output": 256, "batch": [1, 8], "bandwidth_efficiency": 0.7, "step_overhead_ms": 1.5, "max_batch": 256},
            {"command": "cost", "model": "llama-3.1-70b", "gpu": "h100", "gpus": 8, "provider": "aws", "utilization": 0.5,
             "pue": 1.3, "storage_usd_per_month": 100, "failed_run_overhead": 0.05},
            {"command": "cost", "model": "llama-3.1-8b", "gpu": "h100", "price": ["h100=2.5"], "concurrency": 8}]
    odd = [None, -1, 0, 1e308, 1e-300, "x", "", [], {}, True, 18446744073709551616, 4294967296, 0.5, "1e999", "-1GB",
           "80GiB", 1e9]
    lines = []
    for g in good:
        lines.append(json.dumps(g))
        for k in g:
            if k != 'command':
                lines += [json.dumps(dict(g, **{k: v})) for v in odd]
    open('batch_mut.jsonl', 'w').write('\n'.join(lines) + '\n')
    any_('batch batch_mut.jsonl')

nanre = re.compile(r'(?<![A-Za-z_])(-?nan|-?inf|infinity)(?![A-Za-z_])', re.I)
probs = 0; n = 0
def run(expect, argv, stdin=None, label=None):
    global probs, n
    n += 1
    try:
        p = subprocess.run([G] + argv, capture_output=True, timeout=120, input=stdin)
    except subprocess.TimeoutExpired:
        print(f'TIMEOUT  {label or shlex.join(argv)}'); probs += 1; return
    out = p.stdout.decode('utf-8', 'replace'); err = p.stderr.decode('utf-8', 'replace')
    issues = []
    if p.returncode < 0 or p.returncode > 3: issues.append(f'CRASH rc={p.returncode}')
    if p.returncode == 3 or 'internal error' in err: issues.append('INTERNAL')
    if re.search(r'\d{22,}', out + err) and not re.search(r'\d{22,}', ' '.join(argv) + (stdin.decode() if stdin else '')): issues.append('HUGENUM')
    if 'AddressSanitizer' in err or 'runtime error:' in err or 'LeakSanitizer' in err: issues.append('SANITIZER')
    if 'terminate called' in err or 'what():' in err: issues.append('UNCAUGHT')
    given = ' '.join(argv) + (stdin.decode() if stdin else '')
    for src in (out, err):
        for m in nanre.finditer(src):
            if m.group(0).lower().lstrip('-') not in given.lower():
                issues.append('NANINF:' + m.group(0)); break
        else: continue
        break
    if nanre.search(out) and p.returncode != 2 and not issues: issues.append('NANINF-OUT:' + nanre.search(out).group(0))
    if expect == 'bad' and p.returncode == 0: issues.append('EXIT0')
    if p.returncode == 2:
        lines = [l for l in err.splitlines() if l.strip() and not l.startswith(('gpuplan: note:', 'gpuplan: warning:'))]
        if len(lines) != 1 and not argv[:1] == ['batch']: issues.append(f'STDERR{len(lines)}')
        if out.strip() and argv[:1] != ['batch']: issues.append('STDOUT-ON-ERR')
    tag = ','.join(issues) if issues else 'ok'
    first = (err.strip().splitlines() or [''])[0][:220]
    if issues or '-v' in sys.argv:
        print(f'{tag:12s} rc={p.returncode} | {label or shlex.join(argv)} | {first}')
    if issues: probs += 1
for expect, a in cases:
    run(expect, shlex.split(a))
for l in cases_batch:
    run('any', ['batch', '-'], stdin=(l + '\n').encode(), label='batch< ' + l)
print(f'# {n} runs, {probs} with problems (files in {D})', file=sys.stderr)
sys.exit(1 if probs else 0)
