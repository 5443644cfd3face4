"""KubeSchedulerConfiguration: defaulting, plugin merging, multiPoint expansion, weights and validation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedx.core.config.defaults import merge_plugin_set
from kschedx.core.config.profile import (
    ConfigError,
    configuration_from_dict,
    default_config,
    default_profile,
    load_config,
    profile_from_multipoint,
)
from kschedx.core.errors import InputError
from kschedx.core.plugins import REGISTRY

HEADER = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}

DEFAULT_SCORE = [
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodeResourcesFit", 1),
    ("VolumeBinding", 1),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 2),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
]


def load(text: str) -> Any:
    return configuration_from_dict({**HEADER, **(yaml.safe_load(text) or {})}, REGISTRY)


def profile(text: str, name: str = "default-scheduler") -> Any:
    return load(text).profiles[name]


def error(text: str) -> str:
    with pytest.raises(ConfigError) as e:
        load(text)
    return str(e.value)


# --------------------------------------------------------------------------- defaults


def test_default_profile_matches_v135() -> None:
    p = default_profile(REGISTRY)
    assert p.scheduler_name == "default-scheduler"
    assert p.score == DEFAULT_SCORE
    assert p.points["queueSort"] == ["PrioritySort"]
    assert p.points["bind"] == ["DefaultBinder"]
    assert p.points["preEnqueue"] == ["SchedulingGates", "DynamicResources", "DefaultPreemption"]
    assert p.points["postFilter"] == ["DynamicResources", "DefaultPreemption"]
    assert p.filter == [
        "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit",
        "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread",
        "InterPodAffinity", "DynamicResources",
    ]
    # Every typed args kind is defaulted and handed to the plugins.
    assert p.plugin_args["NodeResourcesFit"] == {
        "scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
    }
    assert p.plugin_args["NodeResourcesBalancedAllocation"] == {
        "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
    }
    assert p.plugin_args["PodTopologySpread"] == {"defaultingType": "System"}
    assert p.plugin_args["InterPodAffinity"] == {"hardPodAffinityWeight": 1}
    assert p.plugin_args["VolumeBinding"] == {"bindTimeoutSeconds": 600}
    assert p.plugin_args["DefaultPreemption"] == {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100}
    assert p.plugin_args["NodeAffinity"] == {}


def test_empty_config_gets_one_default_profile_and_percentages() -> None:
    c = default_config(REGISTRY)
    assert list(c.profiles) == ["default-scheduler"]
    assert c.percentage_of_nodes_to_score == 0
    c = load("percentageOfNodesToScore: 30\nprofiles: [{schedulerName: a}, {schedulerName: b, percentageOfNodesToScore: 70}]")
    assert c.profiles["a"].percentage_of_nodes_to_score == 30
    assert c.profiles["b"].percentage_of_nodes_to_score == 70


def test_args_defaults_keep_explicit_zero_and_fill_weights() -> None:
    p = profile(
        """
profiles:
- pluginConfig:
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 0, ignorePreferredTermsOfExistingPods: true}
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated, resources: [{name: cpu}, {name: nvidia.com/gpu, weight: 4}]}}
  - name: NodeResourcesBalancedAllocation
    args: {resources: [{name: cpu}, {name: memory, weight: 0}]}
  - name: VolumeBinding
    args: {bindTimeoutSeconds: 30}
  - name: DefaultPreemption
    args: {minCandidateNodesAbsolute: 0}
"""
    )
    assert p.plugin_args["InterPodAffinity"] == {"hardPodAffinityWeight": 0, "ignorePreferredTermsOfExistingPods": True}
    assert p.plugin_args["NodeResourcesFit"]["scoringStrategy"]["resources"] == [
        {"name": "cpu", "weight": 1}, {"name": "nvidia.com/gpu", "weight": 4}
    ]
    assert p.plugin_args["NodeResourcesBalancedAllocation"]["resources"] == [
        {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}
    ]
    assert p.plugin_args["VolumeBinding"] == {"bindTimeoutSeconds": 30}
    assert p.plugin_args["DefaultPreemption"] == {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 0}


def test_pod_topology_spread_list_defaulting_args() -> None:
    p = profile(
        """
profiles:
- pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - {maxSkew: 2, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}
"""
    )
    assert p.plugin_args["PodTopologySpread"] == {
        "defaultingType": "List",
        "defaultConstraints": [{"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}],
    }


# --------------------------------------------------------------------------- merging


def test_merge_plugin_set_replaces_in_place_and_appends() -> None:
    default = {"enabled": [{"name": "A"}, {"name": "B", "weight": 2}, {"name": "C"}]}
    merged = merge_plugin_set(default, {"enabled": [{"name": "D"}, {"name": "B", "weight": 7}], "disabled": [{"name": "C"}]})
    assert merged["enabled"] == [{"name": "A"}, {"name": "B", "weight": 7}, {"name": "D"}]
    assert merged["disabled"] == [{"name": "C"}]
    star = merge_plugin_set(default, {"enabled": [{"name": "C"}], "disabled": [{"name": "*"}]})
    assert star["enabled"] == [{"name": "C"}]


def test_score_enabled_goes_first_with_its_weight() -> None:
    # Plugins set explicitly at an extension point come before the multiPoint ones.
    p = profile(
        """
profiles:
- plugins:
    score:
      enabled:
      - {name: PodTopologySpread, weight: 2}
      - {name: NodeAffinity, weight: 5}
"""
    )
    assert p.score[:3] == [("PodTopologySpread", 2), ("NodeAffinity", 5), ("TaintToleration", 3)]
    assert [n for n, _ in p.score].count("NodeAffinity") == 1
    # Only the score point is reordered.
    assert p.filter.index("NodeAffinity") < p.filter.index("PodTopologySpread")


def test_explicit_score_weight_zero_means_one_not_multipoint_weight() -> None:
    p = profile("profiles: [{plugins: {score: {enabled: [{name: TaintToleration}]}}}]")
    assert p.score[0] == ("TaintToleration", 1)


def test_disable_at_one_point_and_everywhere() -> None:
    p = profile("profiles: [{plugins: {score: {disabled: [{name: NodeResourcesFit}, {name: ImageLocality}]}}}]")
    assert "NodeResourcesFit" not in [n for n, _ in p.score]
    assert "NodeResourcesFit" in p.filter and "NodeResourcesFit" in p.pre_score
    p = profile("profiles: [{plugins: {multiPoint: {disabled: [{name: TaintToleration}]}}}]")
    assert "TaintToleration" not in p.filter and "TaintToleration" not in [n for n, _ in p.score]


def test_star_disable_keeps_only_explicit_plugins() -> None:
    p = profile(
        "profiles: [{plugins: {score: {disabled: [{name: '*'}], enabled: [{name: ImageLocality, weight: 7}, {name: NodeAffinity}]}}}]"
    )
    assert p.score == [("ImageLocality", 7), ("NodeAffinity", 1)]
    assert "TaintToleration" in p.filter
    p = profile(
        """
profiles:
- plugins:
    multiPoint:
      disabled: [{name: '*'}]
      enabled: [{name: PrioritySort}, {name: DefaultBinder}, {name: NodeName}, {name: ImageLocality, weight: 3}]
"""
    )
    assert p.filter == ["NodeName"]
    assert p.score == [("ImageLocality", 3)]
    assert p.pre_filter == []


def test_multipoint_reenable_takes_user_weight_in_default_position() -> None:
    p = profile("profiles: [{plugins: {multiPoint: {enabled: [{name: ImageLocality, weight: 9}, {name: TaintToleration}]}}}]")
    assert p.score[0] == ("TaintToleration", 1)  # re-enabled without a weight: 0 -> 1
    assert p.score[-1] == ("ImageLocality", 9)


def test_negative_and_large_weights_are_accepted_as_upstream() -> None:
    p = profile("profiles: [{plugins: {score: {enabled: [{name: ImageLocality, weight: -4}, {name: NodeAffinity, weight: 2000}]}}}]")
    assert p.score[:2] == [("ImageLocality", -4), ("NodeAffinity", 2000)]


def test_profile_from_multipoint_adds_queue_sort_and_binder() -> None:
    p = profile_from_multipoint([("NodeName", 0), ("ImageLocality", 4)], REGISTRY)
    assert p.filter == ["NodeName"]
    assert p.score == [("ImageLocality", 4)]
    assert p.points["queueSort"] == ["PrioritySort"]


def test_second_profile_selected_by_name() -> None:
    c = load(
        """
profiles:
- schedulerName: default-scheduler
- schedulerName: bin-packing
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
"""
    )
    assert c.profiles["default-scheduler"].plugin_args["NodeResourcesFit"]["scoringStrategy"]["type"] == "LeastAllocated"
    assert c.profiles["bin-packing"].plugin_args["NodeResourcesFit"]["scoringStrategy"] == {
        "type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
    }


def test_extenders_are_kept_and_warned_about() -> None:
    c = load(
        "extenders: [{urlPrefix: 'https://ext.example/scheduler', filterVerb: filter, prioritizeVerb: prioritize, weight: 3}]"
    )
    assert c.extenders[0]["urlPrefix"] == "https://ext.example/scheduler"
    [w] = c.extender_warnings()
    assert "https://ext.example/scheduler" in w and "filter=filter" in w and "weight 3" in w
    assert "not evaluated offline" in w


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("profiles: [{plugins: {score: {enabled: [{name: Foo}]}}}]", 'ScorePlugin "Foo" does not exist'),
        ("profiles: [{plugins: {multiPoint: {enabled: [{name: Foo}]}}}]", 'PreFilterPlugin "Foo" does not exist'),
        ("profiles: [{plugins: {filter: {enabled: [{name: ImageLocality}]}}}]",
         'plugin "ImageLocality" does not extend FilterPlugin plugin'),
        ("profiles: [{plugins: {score: {enabled: [{name: ImageLocality}, {name: ImageLocality}]}}}]",
         'plugin "ImageLocality" already registered as "ScorePlugin"'),
        ("profiles: [{plugins: {multiPoint: {enabled: [{name: NodeName}, {name: NodeName}]}}}]",
         'plugin "NodeName" already registered as "FilterPlugin"'),
        ("profiles: [{plugins: {score: {enabled: [{name: EBSLimits}]}}}]",
         'profiles[0].plugins.score.enabled[0]: Invalid value: "EBSLimits": was invalid in version'),
        ("profiles: [{plugins: {queueSort: {disabled: [{name: '*'}]}}}]", "only one queue sort plugin required"),
        ("profiles: [{plugins: {multiPoint: {disabled: [{name: DefaultBinder}]}}}]", "at least one bind plugin is needed"),
        ("profiles: [{plugins: {score: {enabled: [{name: ImageLocality, weight: three}]}}}]",
         "cannot unmarshal string into Go struct field Plugin.profiles.plugins.score.enabled.weight of type int32"),
        ("profiles: [{plugins: {score: {enabled: [{name: ImageLocality, weight: 3000000000}]}}}]", "of type int32"),
        # encoding/json's UnmarshalTypeError: the literal only when an integer field can't hold the number.
        ("profiles: [{plugins: {score: {enabled: [{name: ImageLocality, weight: 2.5}]}}}]",
         "cannot unmarshal number 2.5 into Go struct field Plugin.profiles.plugins.score.enabled.weight of type int32"),
        ("profiles: [{schedulerName: 5}]",
         "cannot unmarshal number into Go struct field KubeSchedulerProfile.profiles.schedulerName of type string"),
        ("profiles: [{plugins: {score: {enabled: [{name: ImageLocality, wieght: 3}]}}}]",
         'strict decoding error: unknown field "profiles[0].plugins.score.enabled[0].wieght"'),
        ("profiles: [{schedulerName: a}, {schedulerName: a}]", 'profiles[1].schedulerName: Duplicate value: "a"'),
        ("profiles: [{schedulerName: a}, {}]", "profiles[1].schedulerName: Required value"),
        ("profiles: [{schedulerName: a}, {schedulerName: b, plugins: {queueSort: {enabled: [{name: PrioritySort}], disabled: [{name: '*'}]}}}]",
         "profiles[1].plugins.queueSort: Invalid value"),
        ("percentageOfNodesToScore: 101", "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"),
        ("profiles: [{percentageOfNodesToScore: -1}]", "profiles[0].percentageOfNodesToScore: Invalid value: -1"),
        ("parallelism: 0", "parallelism: Invalid value: 0: should be an integer value greater than zero"),
        ("profiles: [{pluginConfig: [{name: NodeAffinity}, {name: NodeAffinity}]}]",
         'profiles[0].pluginConfig[1]: Duplicate value: "NodeAffinity"'),
        ("extenders: [{urlPrefix: x, prioritizeVerb: p}]", "extenders[0].weight: Invalid value: 0: must have a positive weight"),
        ("extenders: [{urlPrefix: x, bindVerb: b}, {urlPrefix: y, bindVerb: b}]", "only one extender can implement bind"),
    ],
)
def test_configuration_errors(text: str, message: str) -> None:
    assert message in error(text)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("{name: NodeResourcesFit, args: {scoringStrategy: {type: Foo}}}",
         'initializing plugin "NodeResourcesFit": scoringStrategy.type: Unsupported value: "Foo": supported values: '
         '"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"'),
        ("{name: NodeResourcesFit, args: {scoringStrategy: {resources: [{name: cpu}]}}}",
         'scoringStrategy.type: Unsupported value: ""'),
        ("{name: NodeResourcesFit, args: {scoringStrategy: {type: LeastAllocated, resources: [{name: cpu, weight: 101}]}}}",
         "scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]"),
        ("{name: NodeResourcesFit, args: {scoringStrategy: {type: RequestedToCapacityRatio}}}",
         "scoringStrategy.requestedToCapacityRatio: Required value: must be specified when type is RequestedToCapacityRatio"),
        ("{name: NodeResourcesFit, args: {scoringStrategy: {type: MostAllocated, requestedToCapacityRatio: {shape: []}}}}",
         "scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when type is not RequestedToCapacityRatio"),
        ("{name: NodeResourcesFit, args: {scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: []}}}}",
         "scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must be specified"),
        ("{name: NodeResourcesFit, args: {scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: "
         "{shape: [{utilization: 50, score: 3}, {utilization: 50, score: 4}]}}}}",
         "shape[1].utilization: Invalid value: 50: values must be sorted in increasing order"),
        ("{name: NodeResourcesFit, args: {scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: "
         "{shape: [{utilization: 101, score: 11}]}}}}",
         "shape[0].utilization: Invalid value: 101: not in valid range [0, 100], "
         "scoringStrategy.requestedToCapacityRatio.shape[0].score: Invalid value: 11: not in valid range [0, 10]"),
        ("{name: NodeResourcesFit, args: {ignoredResourceGroups: [example.com/gpu]}}",
         "ignoredResourceGroups[0]: Invalid value: \"example.com/gpu\": resource group name can't contain '/'"),
        ("{name: NodeResourcesFit, args: {scoringStrategy: {type: LeastAllocated, bogus: 1}}}",
         'decoding args for plugin NodeResourcesFit (profiles[0].pluginConfig[0].args): strict decoding error: '
         'unknown field "scoringStrategy.bogus"'),
        ("{name: NodeResourcesBalancedAllocation, args: {resources: [{name: cpu, weight: 2}, {name: cpu}]}}",
         "profiles[0].pluginConfig[0].args.resources[0].weight: Invalid value: 2: must be 1, "
         'profiles[0].pluginConfig[0].args.resources[1].name: Duplicate value: "cpu"'),
        ("{name: InterPodAffinity, args: {hardPodAffinityWeight: 101}}",
         "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"),
        ("{name: PodTopologySpread, args: {defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}}",
         'profiles[0].pluginConfig[0].args.defaultingType: Invalid value: "System": when .defaultConstraints are not empty'),
        ("{name: PodTopologySpread, args: {defaultingType: Sometimes}}",
         'defaultingType: Unsupported value: "Sometimes": supported values: "System", "List"'),
        ("{name: PodTopologySpread, args: {defaultingType: List, defaultConstraints: [{maxSkew: 0, topologyKey: zone, "
         "whenUnsatisfiable: ScheduleAnyway, labelSelector: {}}, {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]}}",
         "defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)"),
        ("{name: PodTopologySpread, args: {defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
         "whenUnsatisfiable: ScheduleAnyway}, {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]}}",
         'defaultConstraints[1]: Duplicate value: "{zone, ScheduleAnyway}"'),
        ("{name: PodTopologySpread, args: {defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
         "whenUnsatisfiable: Never}]}}",
         'whenUnsatisfiable: Unsupported value: "Never": supported values: "DoNotSchedule", "ScheduleAnyway"'),
        ("{name: PodTopologySpread, args: {defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
         "whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {a: b}}}]}}",
         "labelSelector: Forbidden: constraint must not define a selector"),
        ("{name: VolumeBinding, args: {bindTimeoutSeconds: -1}}",
         "args.bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value"),
        ("{name: VolumeBinding, args: {shape: [{utilization: 0, score: 0}]}}",
         "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"),
        ("{name: DefaultPreemption, args: {minCandidateNodesPercentage: 101}}",
         "args.minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]"),
        ("{name: DefaultPreemption, args: {minCandidateNodesAbsolute: -1}}",
         "args.minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"),
        ("{name: DefaultPreemption, args: {minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}}",
         "cannot be zero at the same time as minCandidateNodesAbsolute"),
        ("{name: NodeAffinity, args: {addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
         "{nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: Near, values: [a]}]}]}}}}",
         "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: "
         'Unsupported value: "Near"'),
        ("{name: NodeAffinity, args: {addedAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
         "[{weight: 3, preference: {matchExpressions: [{key: zone, operator: In}]}}]}}}",
         "preferredDuringSchedulingIgnoredDuringExecution[0].matchExpressions[0].values: Invalid value: []: "
         "for 'in', 'notin' operators, values set can't be empty"),
        ("{name: NodeAffinity, args: {addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
         "{nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: Exists}]}]}}}}",
         'matchFields[0].operator: Unsupported value: "Exists": supported values: "In", "NotIn"'),
        ("{name: NodeAffinity, args: {addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
         "{nodeSelectorTerms: [{matchExpressions: [{key: 'a/b/c', operator: Exists}]}]}}}}",
         'matchExpressions[0].key: Invalid value: "a/b/c": a qualified name must consist of'),
        ("{name: NodeAffinity, args: {addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
         "{nodeSelectorTerms: [{matchExpressions: [{key: size, operator: Gt, values: [big]}]}]}}}}",
         "values[0]: Invalid value: \"big\": for 'Gt', 'Lt' operators, the value must be an integer"),
        ("{name: InterPodAffinity, args: {kind: NodeAffinityArgs}}",
         "args for plugin InterPodAffinity were not of type InterPodAffinityArgs"),
    ],
)
def test_plugin_args_errors(args: str, message: str) -> None:
    assert message in error(f"profiles: [{{pluginConfig: [{args}]}}]")


def test_fit_args_are_checked_only_when_the_plugin_runs() -> None:
    # Upstream validates NodeResourcesFit's args in the plugin's factory only (the config
    # validation table misses it), so a disabled plugin's bad args go unnoticed.
    bad = "pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {type: Foo}}}]"
    assert "scoringStrategy.type" in error(f"profiles: [{{{bad}}}]")
    load(f"profiles: [{{plugins: {{multiPoint: {{disabled: [{{name: NodeResourcesFit}}]}}}}, {bad}}}]")


def test_unknown_plugin_config_is_ignored_unless_enabled() -> None:
    load("profiles: [{pluginConfig: [{name: MyOutOfTreePlugin, args: {anything: [1, 2]}}]}]")


def test_api_version_and_kind() -> None:
    with pytest.raises(ConfigError, match="unsupported apiVersion \"kubescheduler.config.k8s.io/v1beta3\""):
        configuration_from_dict({**HEADER, "apiVersion": "kubescheduler.config.k8s.io/v1beta3"}, REGISTRY)
    with pytest.raises(ConfigError, match="expected kind KubeSchedulerConfiguration"):
        configuration_from_dict({**HEADER, "kind": "Pod"}, REGISTRY)


def test_load_config_file_errors_name_the_file(tmp_path: Path) -> None:
    good = tmp_path / "ok.yaml"
    good.write_text(yaml.safe_dump({**HEADER, "profiles": [{"schedulerName": "x"}]}))
    assert list(load_config(str(good), REGISTRY).profiles) == ["x"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", '
                   '"profiles": [{"plugins": {"score": {"enabled": [{"name": "Nope"}]}}}]}')
    with pytest.raises(InputError) as e:
        load_config(str(bad), REGISTRY)
    assert str(e.value).startswith(f"{bad}: ")
    assert 'ScorePlugin "Nope" does not exist' in str(e.value)
