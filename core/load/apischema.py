"""The JSON fields of the API types a pod-bearing manifest carries, with their Go types.

Data, not code: the field names and types of k8s.io/api core/v1, apps/v1, batch/v1 and
apimachinery meta/v1 as vendored with v1.35.4 (openshift-kni/scheduler-plugins at
e0b47cde0481), for every struct reachable from Pod, PodTemplate, ReplicationController,
Deployment, ReplicaSet, StatefulSet, DaemonSet, Job and CronJob. Inline (embedded) structs
are flattened into their parent, as JSON sees them. Type notation, read by
core/load/decode.py: ``string``, ``bool``, ``int32``, ``int64``, ``float64``, ``quantity``
(resource.Quantity), ``intstr`` (intstr.IntOrString), ``any`` (times, raw extensions:
not checked); ``string:v1.Protocol`` a named scalar type; ``[]T`` a list; ``map:T`` a map
with string keys (``map:T@v1.ResourceList`` a named one); ``S:pkg.Name`` a struct.
"""

from __future__ import annotations

STRUCTS: dict[str, dict[str, str]] = {
    "apps.DaemonSet": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "spec": "S:apps.DaemonSetSpec",
        "status": "S:apps.DaemonSetStatus",
    },
    "apps.DaemonSetCondition": {
        "type": "string:v1.DaemonSetConditionType", "status": "string:v1.ConditionStatus",
        "lastTransitionTime": "any", "reason": "string", "message": "string",
    },
    "apps.DaemonSetSpec": {
        "selector": "S:meta.LabelSelector", "template": "S:core.PodTemplateSpec",
        "updateStrategy": "S:apps.DaemonSetUpdateStrategy", "minReadySeconds": "int32",
        "revisionHistoryLimit": "int32",
    },
    "apps.DaemonSetStatus": {
        "currentNumberScheduled": "int32", "numberMisscheduled": "int32", "desiredNumberScheduled": "int32",
        "numberReady": "int32", "observedGeneration": "int64", "updatedNumberScheduled": "int32",
        "numberAvailable": "int32", "numberUnavailable": "int32", "collisionCount": "int32",
        "conditions": "[]S:apps.DaemonSetCondition",
    },
    "apps.DaemonSetUpdateStrategy": {
        "type": "string:v1.DaemonSetUpdateStrategyType", "rollingUpdate": "S:apps.RollingUpdateDaemonSet",
    },
    "apps.Deployment": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "spec": "S:apps.DeploymentSpec",
        "status": "S:apps.DeploymentStatus",
    },
    "apps.DeploymentCondition": {
        "type": "string:v1.DeploymentConditionType", "status": "string:v1.ConditionStatus", "lastUpdateTime": "any",
        "lastTransitionTime": "any", "reason": "string", "message": "string",
    },
    "apps.DeploymentSpec": {
        "replicas": "int32", "selector": "S:meta.LabelSelector", "template": "S:core.PodTemplateSpec",
        "strategy": "S:apps.DeploymentStrategy", "minReadySeconds": "int32", "revisionHistoryLimit": "int32",
        "paused": "bool", "progressDeadlineSeconds": "int32",
    },
    "apps.DeploymentStatus": {
        "observedGeneration": "int64", "replicas": "int32", "updatedReplicas": "int32", "readyReplicas": "int32",
        "availableReplicas": "int32", "unavailableReplicas": "int32", "terminatingReplicas": "int32",
        "conditions": "[]S:apps.DeploymentCondition", "collisionCount": "int32",
    },
    "apps.DeploymentStrategy": {
        "type": "string:v1.DeploymentStrategyType", "rollingUpdate": "S:apps.RollingUpdateDeployment",
    },
    "apps.ReplicaSet": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "spec": "S:apps.ReplicaSetSpec",
        "status": "S:apps.ReplicaSetStatus",
    },
    "apps.ReplicaSetCondition": {
        "type": "string:v1.ReplicaSetConditionType", "status": "string:v1.ConditionStatus",
        "lastTransitionTime": "any", "reason": "string", "message": "string",
    },
    "apps.ReplicaSetSpec": {
        "replicas": "int32", "minReadySeconds": "int32", "selector": "S:meta.LabelSelector",
        "template": "S:core.PodTemplateSpec",
    },
    "apps.ReplicaSetStatus": {
        "replicas": "int32", "fullyLabeledReplicas": "int32", "readyReplicas": "int32", "availableReplicas": "int32",
        "terminatingReplicas": "int32", "observedGeneration": "int64", "conditions": "[]S:apps.ReplicaSetCondition",
    },
    "apps.RollingUpdateDaemonSet": {
        "maxUnavailable": "intstr", "maxSurge": "intstr",
    },
    "apps.RollingUpdateDeployment": {
        "maxUnavailable": "intstr", "maxSurge": "intstr",
    },
    "apps.RollingUpdateStatefulSetStrategy": {
        "partition": "int32", "maxUnavailable": "intstr",
    },
    "apps.StatefulSet": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "spec": "S:apps.StatefulSetSpec",
        "status": "S:apps.StatefulSetStatus",
    },
    "apps.StatefulSetCondition": {
        "type": "string:v1.StatefulSetConditionType", "status": "string:v1.ConditionStatus",
        "lastTransitionTime": "any", "reason": "string", "message": "string",
    },
    "apps.StatefulSetOrdinals": {
        "start": "int32",
    },
    "apps.StatefulSetPersistentVolumeClaimRetentionPolicy": {
        "whenDeleted": "string:v1.PersistentVolumeClaimRetentionPolicyType",
        "whenScaled": "string:v1.PersistentVolumeClaimRetentionPolicyType",
    },
    "apps.StatefulSetSpec": {
        "replicas": "int32", "selector": "S:meta.LabelSelector", "template": "S:core.PodTemplateSpec",
        "volumeClaimTemplates": "[]S:core.PersistentVolumeClaim", "serviceName": "string",
        "podManagementPolicy": "string:v1.PodManagementPolicyType",
        "updateStrategy": "S:apps.StatefulSetUpdateStrategy", "revisionHistoryLimit": "int32",
        "minReadySeconds": "int32",
        "persistentVolumeClaimRetentionPolicy": "S:apps.StatefulSetPersistentVolumeClaimRetentionPolicy",
        "ordinals": "S:apps.StatefulSetOrdinals",
    },
    "apps.StatefulSetStatus": {
        "observedGeneration": "int64", "replicas": "int32", "readyReplicas": "int32", "currentReplicas": "int32",
        "updatedReplicas": "int32", "currentRevision": "string", "updateRevision": "string",
        "collisionCount": "int32", "conditions": "[]S:apps.StatefulSetCondition", "availableReplicas": "int32",
    },
    "apps.StatefulSetUpdateStrategy": {
        "type": "string:v1.StatefulSetUpdateStrategyType", "rollingUpdate": "S:apps.RollingUpdateStatefulSetStrategy",
    },
    "batch.CronJob": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "spec": "S:batch.CronJobSpec",
        "status": "S:batch.CronJobStatus",
    },
    "batch.CronJobSpec": {
        "schedule": "string", "timeZone": "string", "startingDeadlineSeconds": "int64",
        "concurrencyPolicy": "string:v1.ConcurrencyPolicy", "suspend": "bool",
        "jobTemplate": "S:batch.JobTemplateSpec", "successfulJobsHistoryLimit": "int32",
        "failedJobsHistoryLimit": "int32",
    },
    "batch.CronJobStatus": {
        "active": "[]S:core.ObjectReference", "lastScheduleTime": "any", "lastSuccessfulTime": "any",
    },
    "batch.Job": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "spec": "S:batch.JobSpec",
        "status": "S:batch.JobStatus",
    },
    "batch.JobCondition": {
        "type": "string:v1.JobConditionType", "status": "string:v1.ConditionStatus", "lastProbeTime": "any",
        "lastTransitionTime": "any", "reason": "string", "message": "string",
    },
    "batch.JobSpec": {
        "parallelism": "int32", "completions": "int32", "activeDeadlineSeconds": "int64",
        "podFailurePolicy": "S:batch.PodFailurePolicy", "successPolicy": "S:batch.SuccessPolicy",
        "backoffLimit": "int32", "backoffLimitPerIndex": "int32", "maxFailedIndexes": "int32",
        "selector": "S:meta.LabelSelector", "manualSelector": "bool", "template": "S:core.PodTemplateSpec",
        "ttlSecondsAfterFinished": "int32", "completionMode": "string:v1.CompletionMode", "suspend": "bool",
        "podReplacementPolicy": "string:v1.PodReplacementPolicy", "managedBy": "string",
    },
    "batch.JobStatus": {
        "conditions": "[]S:batch.JobCondition", "startTime": "any", "completionTime": "any", "active": "int32",
        "succeeded": "int32", "failed": "int32", "terminating": "int32", "completedIndexes": "string",
        "failedIndexes": "string", "uncountedTerminatedPods": "S:batch.UncountedTerminatedPods", "ready": "int32",
    },
    "batch.JobTemplateSpec": {
        "metadata": "S:meta.ObjectMeta", "spec": "S:batch.JobSpec",
    },
    "batch.PodFailurePolicy": {
        "rules": "[]S:batch.PodFailurePolicyRule",
    },
    "batch.PodFailurePolicyOnExitCodesRequirement": {
        "containerName": "string", "operator": "string:v1.PodFailurePolicyOnExitCodesOperator", "values": "[]int32",
    },
    "batch.PodFailurePolicyOnPodConditionsPattern": {
        "type": "string:v1.PodConditionType", "status": "string:v1.ConditionStatus",
    },
    "batch.PodFailurePolicyRule": {
        "action": "string:v1.PodFailurePolicyAction", "onExitCodes": "S:batch.PodFailurePolicyOnExitCodesRequirement",
        "onPodConditions": "[]S:batch.PodFailurePolicyOnPodConditionsPattern",
    },
    "batch.SuccessPolicy": {
        "rules": "[]S:batch.SuccessPolicyRule",
    },
    "batch.SuccessPolicyRule": {
        "succeededIndexes": "string", "succeededCount": "int32",
    },
    "batch.UncountedTerminatedPods": {
        "succeeded": "[]string", "failed": "[]string",
    },
    "core.AWSElasticBlockStoreVolumeSource": {
        "volumeID": "string", "fsType": "string", "partition": "int32", "readOnly": "bool",
    },
    "core.Affinity": {
        "nodeAffinity": "S:core.NodeAffinity", "podAffinity": "S:core.PodAffinity",
        "podAntiAffinity": "S:core.PodAntiAffinity",
    },
    "core.AppArmorProfile": {
        "type": "string:v1.AppArmorProfileType", "localhostProfile": "string",
    },
    "core.AzureDiskVolumeSource": {
        "diskName": "string", "diskURI": "string", "cachingMode": "string:v1.AzureDataDiskCachingMode",
        "fsType": "string", "readOnly": "bool", "kind": "string:v1.AzureDataDiskKind",
    },
    "core.AzureFileVolumeSource": {
        "secretName": "string", "shareName": "string", "readOnly": "bool",
    },
    "core.CSIVolumeSource": {
        "driver": "string", "readOnly": "bool", "fsType": "string", "volumeAttributes": "map:string",
        "nodePublishSecretRef": "S:core.LocalObjectReference",
    },
    "core.Capabilities": {
        "add": "[]string:v1.Capability", "drop": "[]string:v1.Capability",
    },
    "core.CephFSVolumeSource": {
        "monitors": "[]string", "path": "string", "user": "string", "secretFile": "string",
        "secretRef": "S:core.LocalObjectReference", "readOnly": "bool",
    },
    "core.CinderVolumeSource": {
        "volumeID": "string", "fsType": "string", "readOnly": "bool", "secretRef": "S:core.LocalObjectReference",
    },
    "core.ClusterTrustBundleProjection": {
        "name": "string", "signerName": "string", "labelSelector": "S:meta.LabelSelector", "optional": "bool",
        "path": "string",
    },
    "core.ConfigMapEnvSource": {
        "name": "string", "optional": "bool",
    },
    "core.ConfigMapKeySelector": {
        "name": "string", "key": "string", "optional": "bool",
    },
    "core.ConfigMapProjection": {
        "name": "string", "items": "[]S:core.KeyToPath", "optional": "bool",
    },
    "core.ConfigMapVolumeSource": {
        "name": "string", "items": "[]S:core.KeyToPath", "defaultMode": "int32", "optional": "bool",
    },
    "core.Container": {
        "name": "string", "image": "string", "command": "[]string", "args": "[]string", "workingDir": "string",
        "ports": "[]S:core.ContainerPort", "envFrom": "[]S:core.EnvFromSource", "env": "[]S:core.EnvVar",
        "resources": "S:core.ResourceRequirements", "resizePolicy": "[]S:core.ContainerResizePolicy",
        "restartPolicy": "string:v1.ContainerRestartPolicy", "restartPolicyRules": "[]S:core.ContainerRestartRule",
        "volumeMounts": "[]S:core.VolumeMount", "volumeDevices": "[]S:core.VolumeDevice",
        "livenessProbe": "S:core.Probe", "readinessProbe": "S:core.Probe", "startupProbe": "S:core.Probe",
        "lifecycle": "S:core.Lifecycle", "terminationMessagePath": "string",
        "terminationMessagePolicy": "string:v1.TerminationMessagePolicy", "imagePullPolicy": "string:v1.PullPolicy",
        "securityContext": "S:core.SecurityContext", "stdin": "bool", "stdinOnce": "bool", "tty": "bool",
    },
    "core.ContainerExtendedResourceRequest": {
        "containerName": "string", "resourceName": "string", "requestName": "string",
    },
    "core.ContainerPort": {
        "name": "string", "hostPort": "int32", "containerPort": "int32", "protocol": "string:v1.Protocol",
        "hostIP": "string",
    },
    "core.ContainerResizePolicy": {
        "resourceName": "string:v1.ResourceName", "restartPolicy": "string:v1.ResourceResizeRestartPolicy",
    },
    "core.ContainerRestartRule": {
        "action": "string:v1.ContainerRestartRuleAction", "exitCodes": "S:core.ContainerRestartRuleOnExitCodes",
    },
    "core.ContainerRestartRuleOnExitCodes": {
        "operator": "string:v1.ContainerRestartRuleOnExitCodesOperator", "values": "[]int32",
    },
    "core.ContainerState": {
        "waiting": "S:core.ContainerStateWaiting", "running": "S:core.ContainerStateRunning",
        "terminated": "S:core.ContainerStateTerminated",
    },
    "core.ContainerStateRunning": {
        "startedAt": "any",
    },
    "core.ContainerStateTerminated": {
        "exitCode": "int32", "signal": "int32", "reason": "string", "message": "string", "startedAt": "any",
        "finishedAt": "any", "containerID": "string",
    },
    "core.ContainerStateWaiting": {
        "reason": "string", "message": "string",
    },
    "core.ContainerStatus": {
        "name": "string", "state": "S:core.ContainerState", "lastState": "S:core.ContainerState", "ready": "bool",
        "restartCount": "int32", "image": "string", "imageID": "string", "containerID": "string", "started": "bool",
        "allocatedResources": "map:quantity@v1.ResourceList", "resources": "S:core.ResourceRequirements",
        "volumeMounts": "[]S:core.VolumeMountStatus", "user": "S:core.ContainerUser",
        "allocatedResourcesStatus": "[]S:core.ResourceStatus", "stopSignal": "string:v1.Signal",
    },
    "core.ContainerUser": {
        "linux": "S:core.LinuxContainerUser",
    },
    "core.DownwardAPIProjection": {
        "items": "[]S:core.DownwardAPIVolumeFile",
    },
    "core.DownwardAPIVolumeFile": {
        "path": "string", "fieldRef": "S:core.ObjectFieldSelector",
        "resourceFieldRef": "S:core.ResourceFieldSelector", "mode": "int32",
    },
    "core.DownwardAPIVolumeSource": {
        "items": "[]S:core.DownwardAPIVolumeFile", "defaultMode": "int32",
    },
    "core.EmptyDirVolumeSource": {
        "medium": "string:v1.StorageMedium", "sizeLimit": "quantity",
    },
    "core.EnvFromSource": {
        "prefix": "string", "configMapRef": "S:core.ConfigMapEnvSource", "secretRef": "S:core.SecretEnvSource",
    },
    "core.EnvVar": {
        "name": "string", "value": "string", "valueFrom": "S:core.EnvVarSource",
    },
    "core.EnvVarSource": {
        "fieldRef": "S:core.ObjectFieldSelector", "resourceFieldRef": "S:core.ResourceFieldSelector",
        "configMapKeyRef": "S:core.ConfigMapKeySelector", "secretKeyRef": "S:core.SecretKeySelector",
        "fileKeyRef": "S:core.FileKeySelector",
    },
    "core.EphemeralContainer": {
        "name": "string", "image": "string", "command": "[]string", "args": "[]string", "workingDir": "string",
        "ports": "[]S:core.ContainerPort", "envFrom": "[]S:core.EnvFromSource", "env": "[]S:core.EnvVar",
        "resources": "S:core.ResourceRequirements", "resizePolicy": "[]S:core.ContainerResizePolicy",
        "restartPolicy": "string:v1.ContainerRestartPolicy", "restartPolicyRules": "[]S:core.ContainerRestartRule",
        "volumeMounts": "[]S:core.VolumeMount", "volumeDevices": "[]S:core.VolumeDevice",
        "livenessProbe": "S:core.Probe", "readinessProbe": "S:core.Probe", "startupProbe": "S:core.Probe",
        "lifecycle": "S:core.Lifecycle", "terminationMessagePath": "string",
        "terminationMessagePolicy": "string:v1.TerminationMessagePolicy", "imagePullPolicy": "string:v1.PullPolicy",
        "securityContext": "S:core.SecurityContext", "stdin": "bool", "stdinOnce": "bool", "tty": "bool",
        "targetContainerName": "string",
    },
    "core.EphemeralContainerCommon": {
        "name": "string", "image": "string", "command": "[]string", "args": "[]string", "workingDir": "string",
        "ports": "[]S:core.ContainerPort", "envFrom": "[]S:core.EnvFromSource", "env": "[]S:core.EnvVar",
        "resources": "S:core.ResourceRequirements", "resizePolicy": "[]S:core.ContainerResizePolicy",
        "restartPolicy": "string:v1.ContainerRestartPolicy", "restartPolicyRules": "[]S:core.ContainerRestartRule",
        "volumeMounts": "[]S:core.VolumeMount", "volumeDevices": "[]S:core.VolumeDevice",
        "livenessProbe": "S:core.Probe", "readinessProbe": "S:core.Probe", "startupProbe": "S:core.Probe",
        "lifecycle": "S:core.Lifecycle", "terminationMessagePath": "string",
        "terminationMessagePolicy": "string:v1.TerminationMessagePolicy", "imagePullPolicy": "string:v1.PullPolicy",
        "securityContext": "S:core.SecurityContext", "stdin": "bool", "stdinOnce": "bool", "tty": "bool",
    },
    "core.EphemeralVolumeSource": {
        "volumeClaimTemplate": "S:core.PersistentVolumeClaimTemplate",
    },
    "core.ExecAction": {
        "command": "[]string",
    },
    "core.FCVolumeSource": {
        "targetWWNs": "[]string", "lun": "int32", "fsType": "string", "readOnly": "bool", "wwids": "[]string",
    },
    "core.FileKeySelector": {
        "volumeName": "string", "path": "string", "key": "string", "optional": "bool",
    },
    "core.FlexVolumeSource": {
        "driver": "string", "fsType": "string", "secretRef": "S:core.LocalObjectReference", "readOnly": "bool",
        "options": "map:string",
    },
    "core.FlockerVolumeSource": {
        "datasetName": "string", "datasetUUID": "string",
    },
    "core.GCEPersistentDiskVolumeSource": {
        "pdName": "string", "fsType": "string", "partition": "int32", "readOnly": "bool",
    },
    "core.GRPCAction": {
        "port": "int32", "service": "string",
    },
    "core.GitRepoVolumeSource": {
        "repository": "string", "revision": "string", "directory": "string",
    },
    "core.GlusterfsVolumeSource": {
        "endpoints": "string", "path": "string", "readOnly": "bool",
    },
    "core.HTTPGetAction": {
        "path": "string", "port": "intstr", "host": "string", "scheme": "string:v1.URIScheme",
        "httpHeaders": "[]S:core.HTTPHeader",
    },
    "core.HTTPHeader": {
        "name": "string", "value": "string",
    },
    "core.HostAlias": {
        "ip": "string", "hostnames": "[]string",
    },
    "core.HostIP": {
        "ip": "string",
    },
    "core.HostPathVolumeSource": {
        "path": "string", "type": "string:v1.HostPathType",
    },
    "core.ISCSIVolumeSource": {
        "targetPortal": "string", "iqn": "string", "lun": "int32", "iscsiInterface": "string", "fsType": "string",
        "readOnly": "bool", "portals": "[]string", "chapAuthDiscovery": "bool", "chapAuthSession": "bool",
        "secretRef": "S:core.LocalObjectReference", "initiatorName": "string",
    },
    "core.ImageVolumeSource": {
        "reference": "string", "pullPolicy": "string:v1.PullPolicy",
    },
    "core.KeyToPath": {
        "key": "string", "path": "string", "mode": "int32",
    },
    "core.Lifecycle": {
        "postStart": "S:core.LifecycleHandler", "preStop": "S:core.LifecycleHandler",
        "stopSignal": "string:v1.Signal",
    },
    "core.LifecycleHandler": {
        "exec": "S:core.ExecAction", "httpGet": "S:core.HTTPGetAction", "tcpSocket": "S:core.TCPSocketAction",
        "sleep": "S:core.SleepAction",
    },
    "core.LinuxContainerUser": {
        "uid": "int64", "gid": "int64", "supplementalGroups": "[]int64",
    },
    "core.LocalObjectReference": {
        "name": "string",
    },
    "core.ModifyVolumeStatus": {
        "targetVolumeAttributesClassName": "string", "status": "string:v1.PersistentVolumeClaimModifyVolumeStatus",
    },
    "core.NFSVolumeSource": {
        "server": "string", "path": "string", "readOnly": "bool",
    },
    "core.NodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": "S:core.NodeSelector",
        "preferredDuringSchedulingIgnoredDuringExecution": "[]S:core.PreferredSchedulingTerm",
    },
    "core.NodeSelector": {
        "nodeSelectorTerms": "[]S:core.NodeSelectorTerm",
    },
    "core.NodeSelectorRequirement": {
        "key": "string", "operator": "string:v1.NodeSelectorOperator", "values": "[]string",
    },
    "core.NodeSelectorTerm": {
        "matchExpressions": "[]S:core.NodeSelectorRequirement", "matchFields": "[]S:core.NodeSelectorRequirement",
    },
    "core.ObjectFieldSelector": {
        "apiVersion": "string", "fieldPath": "string",
    },
    "core.ObjectReference": {
        "kind": "string", "namespace": "string", "name": "string", "uid": "string", "apiVersion": "string",
        "resourceVersion": "string", "fieldPath": "string",
    },
    "core.PersistentVolumeClaim": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta",
        "spec": "S:core.PersistentVolumeClaimSpec", "status": "S:core.PersistentVolumeClaimStatus",
    },
    "core.PersistentVolumeClaimCondition": {
        "type": "string:v1.PersistentVolumeClaimConditionType", "status": "string:v1.ConditionStatus",
        "lastProbeTime": "any", "lastTransitionTime": "any", "reason": "string", "message": "string",
    },
    "core.PersistentVolumeClaimSpec": {
        "accessModes": "[]string:v1.PersistentVolumeAccessMode", "selector": "S:meta.LabelSelector",
        "resources": "S:core.VolumeResourceRequirements", "volumeName": "string", "storageClassName": "string",
        "volumeMode": "string:v1.PersistentVolumeMode", "dataSource": "S:core.TypedLocalObjectReference",
        "dataSourceRef": "S:core.TypedObjectReference", "volumeAttributesClassName": "string",
    },
    "core.PersistentVolumeClaimStatus": {
        "phase": "string:v1.PersistentVolumeClaimPhase", "accessModes": "[]string:v1.PersistentVolumeAccessMode",
        "capacity": "map:quantity@v1.ResourceList", "conditions": "[]S:core.PersistentVolumeClaimCondition",
        "allocatedResources": "map:quantity@v1.ResourceList",
        "allocatedResourceStatuses": "map:string:v1.ClaimResourceStatus",
        "currentVolumeAttributesClassName": "string", "modifyVolumeStatus": "S:core.ModifyVolumeStatus",
    },
    "core.PersistentVolumeClaimTemplate": {
        "metadata": "S:meta.ObjectMeta", "spec": "S:core.PersistentVolumeClaimSpec",
    },
    "core.PersistentVolumeClaimVolumeSource": {
        "claimName": "string", "readOnly": "bool",
    },
    "core.PhotonPersistentDiskVolumeSource": {
        "pdID": "string", "fsType": "string",
    },
    "core.Pod": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "spec": "S:core.PodSpec",
        "status": "S:core.PodStatus",
    },
    "core.PodAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": "[]S:core.PodAffinityTerm",
        "preferredDuringSchedulingIgnoredDuringExecution": "[]S:core.WeightedPodAffinityTerm",
    },
    "core.PodAffinityTerm": {
        "labelSelector": "S:meta.LabelSelector", "namespaces": "[]string", "topologyKey": "string",
        "namespaceSelector": "S:meta.LabelSelector", "matchLabelKeys": "[]string", "mismatchLabelKeys": "[]string",
    },
    "core.PodAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": "[]S:core.PodAffinityTerm",
        "preferredDuringSchedulingIgnoredDuringExecution": "[]S:core.WeightedPodAffinityTerm",
    },
    "core.PodCertificateProjection": {
        "signerName": "string", "keyType": "string", "maxExpirationSeconds": "int32",
        "credentialBundlePath": "string", "keyPath": "string", "certificateChainPath": "string",
        "userAnnotations": "map:string",
    },
    "core.PodCondition": {
        "type": "string:v1.PodConditionType", "observedGeneration": "int64", "status": "string:v1.ConditionStatus",
        "lastProbeTime": "any", "lastTransitionTime": "any", "reason": "string", "message": "string",
    },
    "core.PodDNSConfig": {
        "nameservers": "[]string", "searches": "[]string", "options": "[]S:core.PodDNSConfigOption",
    },
    "core.PodDNSConfigOption": {
        "name": "string", "value": "string",
    },
    "core.PodExtendedResourceClaimStatus": {
        "requestMappings": "[]S:core.ContainerExtendedResourceRequest", "resourceClaimName": "string",
    },
    "core.PodIP": {
        "ip": "string",
    },
    "core.PodOS": {
        "name": "string:v1.OSName",
    },
    "core.PodReadinessGate": {
        "conditionType": "string:v1.PodConditionType",
    },
    "core.PodResourceClaim": {
        "name": "string", "resourceClaimName": "string", "resourceClaimTemplateName": "string",
    },
    "core.PodResourceClaimStatus": {
        "name": "string", "resourceClaimName": "string",
    },
    "core.PodSchedulingGate": {
        "name": "string",
    },
    "core.PodSecurityContext": {
        "seLinuxOptions": "S:core.SELinuxOptions", "windowsOptions": "S:core.WindowsSecurityContextOptions",
        "runAsUser": "int64", "runAsGroup": "int64", "runAsNonRoot": "bool", "supplementalGroups": "[]int64",
        "supplementalGroupsPolicy": "string:v1.SupplementalGroupsPolicy", "fsGroup": "int64",
        "sysctls": "[]S:core.Sysctl", "fsGroupChangePolicy": "string:v1.PodFSGroupChangePolicy",
        "seccompProfile": "S:core.SeccompProfile", "appArmorProfile": "S:core.AppArmorProfile",
        "seLinuxChangePolicy": "string:v1.PodSELinuxChangePolicy",
    },
    "core.PodSpec": {
        "volumes": "[]S:core.Volume", "initContainers": "[]S:core.Container", "containers": "[]S:core.Container",
        "ephemeralContainers": "[]S:core.EphemeralContainer", "restartPolicy": "string:v1.RestartPolicy",
        "terminationGracePeriodSeconds": "int64", "activeDeadlineSeconds": "int64",
        "dnsPolicy": "string:v1.DNSPolicy", "nodeSelector": "map:string", "serviceAccountName": "string",
        "serviceAccount": "string", "automountServiceAccountToken": "bool", "nodeName": "string",
        "hostNetwork": "bool", "hostPID": "bool", "hostIPC": "bool", "shareProcessNamespace": "bool",
        "securityContext": "S:core.PodSecurityContext", "imagePullSecrets": "[]S:core.LocalObjectReference",
        "hostname": "string", "subdomain": "string", "affinity": "S:core.Affinity", "schedulerName": "string",
        "tolerations": "[]S:core.Toleration", "hostAliases": "[]S:core.HostAlias", "priorityClassName": "string",
        "priority": "int32", "dnsConfig": "S:core.PodDNSConfig", "readinessGates": "[]S:core.PodReadinessGate",
        "runtimeClassName": "string", "enableServiceLinks": "bool", "preemptionPolicy": "string:v1.PreemptionPolicy",
        "overhead": "map:quantity@v1.ResourceList", "topologySpreadConstraints": "[]S:core.TopologySpreadConstraint",
        "setHostnameAsFQDN": "bool", "os": "S:core.PodOS", "hostUsers": "bool",
        "schedulingGates": "[]S:core.PodSchedulingGate", "resourceClaims": "[]S:core.PodResourceClaim",
        "resources": "S:core.ResourceRequirements", "hostnameOverride": "string",
        "workloadRef": "S:core.WorkloadReference",
    },
    "core.PodStatus": {
        "observedGeneration": "int64", "phase": "string:v1.PodPhase", "conditions": "[]S:core.PodCondition",
        "message": "string", "reason": "string", "nominatedNodeName": "string", "hostIP": "string",
        "hostIPs": "[]S:core.HostIP", "podIP": "string", "podIPs": "[]S:core.PodIP", "startTime": "any",
        "initContainerStatuses": "[]S:core.ContainerStatus", "containerStatuses": "[]S:core.ContainerStatus",
        "qosClass": "string:v1.PodQOSClass", "ephemeralContainerStatuses": "[]S:core.ContainerStatus",
        "resize": "string:v1.PodResizeStatus", "resourceClaimStatuses": "[]S:core.PodResourceClaimStatus",
        "extendedResourceClaimStatus": "S:core.PodExtendedResourceClaimStatus",
        "allocatedResources": "map:quantity@v1.ResourceList", "resources": "S:core.ResourceRequirements",
    },
    "core.PodTemplate": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta",
        "template": "S:core.PodTemplateSpec",
    },
    "core.PodTemplateSpec": {
        "metadata": "S:meta.ObjectMeta", "spec": "S:core.PodSpec",
    },
    "core.PortworxVolumeSource": {
        "volumeID": "string", "fsType": "string", "readOnly": "bool",
    },
    "core.PreferredSchedulingTerm": {
        "weight": "int32", "preference": "S:core.NodeSelectorTerm",
    },
    "core.Probe": {
        "exec": "S:core.ExecAction", "httpGet": "S:core.HTTPGetAction", "tcpSocket": "S:core.TCPSocketAction",
        "grpc": "S:core.GRPCAction", "initialDelaySeconds": "int32", "timeoutSeconds": "int32",
        "periodSeconds": "int32", "successThreshold": "int32", "failureThreshold": "int32",
        "terminationGracePeriodSeconds": "int64",
    },
    "core.ProbeHandler": {
        "exec": "S:core.ExecAction", "httpGet": "S:core.HTTPGetAction", "tcpSocket": "S:core.TCPSocketAction",
        "grpc": "S:core.GRPCAction",
    },
    "core.ProjectedVolumeSource": {
        "sources": "[]S:core.VolumeProjection", "defaultMode": "int32",
    },
    "core.QuobyteVolumeSource": {
        "registry": "string", "volume": "string", "readOnly": "bool", "user": "string", "group": "string",
        "tenant": "string",
    },
    "core.RBDVolumeSource": {
        "monitors": "[]string", "image": "string", "fsType": "string", "pool": "string", "user": "string",
        "keyring": "string", "secretRef": "S:core.LocalObjectReference", "readOnly": "bool",
    },
    "core.ReplicationController": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta",
        "spec": "S:core.ReplicationControllerSpec", "status": "S:core.ReplicationControllerStatus",
    },
    "core.ReplicationControllerCondition": {
        "type": "string:v1.ReplicationControllerConditionType", "status": "string:v1.ConditionStatus",
        "lastTransitionTime": "any", "reason": "string", "message": "string",
    },
    "core.ReplicationControllerSpec": {
        "replicas": "int32", "minReadySeconds": "int32", "selector": "map:string",
        "template": "S:core.PodTemplateSpec",
    },
    "core.ReplicationControllerStatus": {
        "replicas": "int32", "fullyLabeledReplicas": "int32", "readyReplicas": "int32", "availableReplicas": "int32",
        "observedGeneration": "int64", "conditions": "[]S:core.ReplicationControllerCondition",
    },
    "core.ResourceClaim": {
        "name": "string", "request": "string",
    },
    "core.ResourceFieldSelector": {
        "containerName": "string", "resource": "string", "divisor": "quantity",
    },
    "core.ResourceHealth": {
        "resourceID": "string:v1.ResourceID", "health": "string:v1.ResourceHealthStatus",
    },
    "core.ResourceRequirements": {
        "limits": "map:quantity@v1.ResourceList", "requests": "map:quantity@v1.ResourceList",
        "claims": "[]S:core.ResourceClaim",
    },
    "core.ResourceStatus": {
        "name": "string:v1.ResourceName", "resources": "[]S:core.ResourceHealth",
    },
    "core.SELinuxOptions": {
        "user": "string", "role": "string", "type": "string", "level": "string",
    },
    "core.ScaleIOVolumeSource": {
        "gateway": "string", "system": "string", "secretRef": "S:core.LocalObjectReference", "sslEnabled": "bool",
        "protectionDomain": "string", "storagePool": "string", "storageMode": "string", "volumeName": "string",
        "fsType": "string", "readOnly": "bool",
    },
    "core.SeccompProfile": {
        "type": "string:v1.SeccompProfileType", "localhostProfile": "string",
    },
    "core.SecretEnvSource": {
        "name": "string", "optional": "bool",
    },
    "core.SecretKeySelector": {
        "name": "string", "key": "string", "optional": "bool",
    },
    "core.SecretProjection": {
        "name": "string", "items": "[]S:core.KeyToPath", "optional": "bool",
    },
    "core.SecretVolumeSource": {
        "secretName": "string", "items": "[]S:core.KeyToPath", "defaultMode": "int32", "optional": "bool",
    },
    "core.SecurityContext": {
        "capabilities": "S:core.Capabilities", "privileged": "bool", "seLinuxOptions": "S:core.SELinuxOptions",
        "windowsOptions": "S:core.WindowsSecurityContextOptions", "runAsUser": "int64", "runAsGroup": "int64",
        "runAsNonRoot": "bool", "readOnlyRootFilesystem": "bool", "allowPrivilegeEscalation": "bool",
        "procMount": "string:v1.ProcMountType", "seccompProfile": "S:core.SeccompProfile",
        "appArmorProfile": "S:core.AppArmorProfile",
    },
    "core.ServiceAccountTokenProjection": {
        "audience": "string", "expirationSeconds": "int64", "path": "string",
    },
    "core.SleepAction": {
        "seconds": "int64",
    },
    "core.StorageOSVolumeSource": {
        "volumeName": "string", "volumeNamespace": "string", "fsType": "string", "readOnly": "bool",
        "secretRef": "S:core.LocalObjectReference",
    },
    "core.Sysctl": {
        "name": "string", "value": "string",
    },
    "core.TCPSocketAction": {
        "port": "intstr", "host": "string",
    },
    "core.Toleration": {
        "key": "string", "operator": "string:v1.TolerationOperator", "value": "string",
        "effect": "string:v1.TaintEffect", "tolerationSeconds": "int64",
    },
    "core.TopologySpreadConstraint": {
        "maxSkew": "int32", "topologyKey": "string", "whenUnsatisfiable": "string:v1.UnsatisfiableConstraintAction",
        "labelSelector": "S:meta.LabelSelector", "minDomains": "int32",
        "nodeAffinityPolicy": "string:v1.NodeInclusionPolicy", "nodeTaintsPolicy": "string:v1.NodeInclusionPolicy",
        "matchLabelKeys": "[]string",
    },
    "core.TypedLocalObjectReference": {
        "apiGroup": "string", "kind": "string", "name": "string",
    },
    "core.TypedObjectReference": {
        "apiGroup": "string", "kind": "string", "name": "string", "namespace": "string",
    },
    "core.Volume": {
        "name": "string", "hostPath": "S:core.HostPathVolumeSource", "emptyDir": "S:core.EmptyDirVolumeSource",
        "gcePersistentDisk": "S:core.GCEPersistentDiskVolumeSource",
        "awsElasticBlockStore": "S:core.AWSElasticBlockStoreVolumeSource", "gitRepo": "S:core.GitRepoVolumeSource",
        "secret": "S:core.SecretVolumeSource", "nfs": "S:core.NFSVolumeSource", "iscsi": "S:core.ISCSIVolumeSource",
        "glusterfs": "S:core.GlusterfsVolumeSource",
        "persistentVolumeClaim": "S:core.PersistentVolumeClaimVolumeSource", "rbd": "S:core.RBDVolumeSource",
        "flexVolume": "S:core.FlexVolumeSource", "cinder": "S:core.CinderVolumeSource",
        "cephfs": "S:core.CephFSVolumeSource", "flocker": "S:core.FlockerVolumeSource",
        "downwardAPI": "S:core.DownwardAPIVolumeSource", "fc": "S:core.FCVolumeSource",
        "azureFile": "S:core.AzureFileVolumeSource", "configMap": "S:core.ConfigMapVolumeSource",
        "vsphereVolume": "S:core.VsphereVirtualDiskVolumeSource", "quobyte": "S:core.QuobyteVolumeSource",
        "azureDisk": "S:core.AzureDiskVolumeSource",
        "photonPersistentDisk": "S:core.PhotonPersistentDiskVolumeSource",
        "projected": "S:core.ProjectedVolumeSource", "portworxVolume": "S:core.PortworxVolumeSource",
        "scaleIO": "S:core.ScaleIOVolumeSource", "storageos": "S:core.StorageOSVolumeSource",
        "csi": "S:core.CSIVolumeSource", "ephemeral": "S:core.EphemeralVolumeSource",
        "image": "S:core.ImageVolumeSource",
    },
    "core.VolumeDevice": {
        "name": "string", "devicePath": "string",
    },
    "core.VolumeMount": {
        "name": "string", "readOnly": "bool", "recursiveReadOnly": "string:v1.RecursiveReadOnlyMode",
        "mountPath": "string", "subPath": "string", "mountPropagation": "string:v1.MountPropagationMode",
        "subPathExpr": "string",
    },
    "core.VolumeMountStatus": {
        "name": "string", "mountPath": "string", "readOnly": "bool",
        "recursiveReadOnly": "string:v1.RecursiveReadOnlyMode",
    },
    "core.VolumeProjection": {
        "secret": "S:core.SecretProjection", "downwardAPI": "S:core.DownwardAPIProjection",
        "configMap": "S:core.ConfigMapProjection", "serviceAccountToken": "S:core.ServiceAccountTokenProjection",
        "clusterTrustBundle": "S:core.ClusterTrustBundleProjection",
        "podCertificate": "S:core.PodCertificateProjection",
    },
    "core.VolumeResourceRequirements": {
        "limits": "map:quantity@v1.ResourceList", "requests": "map:quantity@v1.ResourceList",
    },
    "core.VolumeSource": {
        "hostPath": "S:core.HostPathVolumeSource", "emptyDir": "S:core.EmptyDirVolumeSource",
        "gcePersistentDisk": "S:core.GCEPersistentDiskVolumeSource",
        "awsElasticBlockStore": "S:core.AWSElasticBlockStoreVolumeSource", "gitRepo": "S:core.GitRepoVolumeSource",
        "secret": "S:core.SecretVolumeSource", "nfs": "S:core.NFSVolumeSource", "iscsi": "S:core.ISCSIVolumeSource",
        "glusterfs": "S:core.GlusterfsVolumeSource",
        "persistentVolumeClaim": "S:core.PersistentVolumeClaimVolumeSource", "rbd": "S:core.RBDVolumeSource",
        "flexVolume": "S:core.FlexVolumeSource", "cinder": "S:core.CinderVolumeSource",
        "cephfs": "S:core.CephFSVolumeSource", "flocker": "S:core.FlockerVolumeSource",
        "downwardAPI": "S:core.DownwardAPIVolumeSource", "fc": "S:core.FCVolumeSource",
        "azureFile": "S:core.AzureFileVolumeSource", "configMap": "S:core.ConfigMapVolumeSource",
        "vsphereVolume": "S:core.VsphereVirtualDiskVolumeSource", "quobyte": "S:core.QuobyteVolumeSource",
        "azureDisk": "S:core.AzureDiskVolumeSource",
        "photonPersistentDisk": "S:core.PhotonPersistentDiskVolumeSource",
        "projected": "S:core.ProjectedVolumeSource", "portworxVolume": "S:core.PortworxVolumeSource",
        "scaleIO": "S:core.ScaleIOVolumeSource", "storageos": "S:core.StorageOSVolumeSource",
        "csi": "S:core.CSIVolumeSource", "ephemeral": "S:core.EphemeralVolumeSource",
        "image": "S:core.ImageVolumeSource",
    },
    "core.VsphereVirtualDiskVolumeSource": {
        "volumePath": "string", "fsType": "string", "storagePolicyName": "string", "storagePolicyID": "string",
    },
    "core.WeightedPodAffinityTerm": {
        "weight": "int32", "podAffinityTerm": "S:core.PodAffinityTerm",
    },
    "core.WindowsSecurityContextOptions": {
        "gmsaCredentialSpecName": "string", "gmsaCredentialSpec": "string", "runAsUserName": "string",
        "hostProcess": "bool",
    },
    "core.WorkloadReference": {
        "name": "string", "podGroup": "string", "podGroupReplicaKey": "string",
    },
    "meta.LabelSelector": {
        "matchLabels": "map:string", "matchExpressions": "[]S:meta.LabelSelectorRequirement",
    },
    "meta.LabelSelectorRequirement": {
        "key": "string", "operator": "string:v1.LabelSelectorOperator", "values": "[]string",
    },
    "meta.ManagedFieldsEntry": {
        "manager": "string", "operation": "string:v1.ManagedFieldsOperationType", "apiVersion": "string",
        "time": "any", "fieldsType": "string", "fieldsV1": "any", "subresource": "string",
    },
    "meta.ObjectMeta": {
        "name": "string", "generateName": "string", "namespace": "string", "selfLink": "string", "uid": "string",
        "resourceVersion": "string", "generation": "int64", "creationTimestamp": "any", "deletionTimestamp": "any",
        "deletionGracePeriodSeconds": "int64", "labels": "map:string", "annotations": "map:string",
        "ownerReferences": "[]S:meta.OwnerReference", "finalizers": "[]string",
        "managedFields": "[]S:meta.ManagedFieldsEntry",
    },
    "meta.OwnerReference": {
        "apiVersion": "string", "kind": "string", "name": "string", "uid": "string", "controller": "bool",
        "blockOwnerDeletion": "bool",
    },
    "meta.TypeMeta": {
        "kind": "string", "apiVersion": "string",
    },
}


# The tables and fields STRUCTS lacks for the objects of a cluster source, from the
# v1.36 types (microshift release-4.23; tools/gen_apischema.py prints them): the other
# kinds the scheduler lists, and the v1.36 fields of the pod-bearing kinds. A stored object
# is read through STRUCTS and these together (core/load/decode.py STORED_STRUCTS): the
# newest release the tool reproduces, so that no field a supported release stores is lost.
STORED_EXTRA: dict[str, dict[str, str]] = {
    "apps.ControllerRevision": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "data": "any", "revision": "int64",
    },
    "core.AttachedVolume": {
        "name": "string:v1.UniqueVolumeName", "devicePath": "string",
    },
    "core.AzureFilePersistentVolumeSource": {
        "secretName": "string", "shareName": "string", "readOnly": "bool", "secretNamespace": "string",
    },
    "core.CSIPersistentVolumeSource": {
        "driver": "string", "volumeHandle": "string", "readOnly": "bool", "fsType": "string",
        "volumeAttributes": "map:string", "controllerPublishSecretRef": "S:core.SecretReference",
        "nodeStageSecretRef": "S:core.SecretReference", "nodePublishSecretRef": "S:core.SecretReference",
        "controllerExpandSecretRef": "S:core.SecretReference", "nodeExpandSecretRef": "S:core.SecretReference",
    },
    "core.CephFSPersistentVolumeSource": {
        "monitors": "[]string", "path": "string", "user": "string", "secretFile": "string",
        "secretRef": "S:core.SecretReference", "readOnly": "bool",
    },
    "core.CinderPersistentVolumeSource": {
        "volumeID": "string", "fsType": "string", "readOnly": "bool", "secretRef": "S:core.SecretReference",
    },
    "core.ClientIPConfig": {
        "timeoutSeconds": "int32",
    },
    "core.ConfigMapNodeConfigSource": {
        "namespace": "string", "name": "string", "uid": "string:types.UID", "resourceVersion": "string",
        "kubeletConfigKey": "string",
    },
    "core.ContainerImage": {
        "names": "[]string", "sizeBytes": "int64",
    },
    "core.DaemonEndpoint": {
        "Port": "int32",
    },
    "core.Event": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta",
        "involvedObject": "S:core.ObjectReference", "reason": "string", "message": "string",
        "source": "S:core.EventSource", "firstTimestamp": "any", "lastTimestamp": "any", "count": "int32",
        "type": "string", "eventTime": "any", "series": "S:core.EventSeries", "action": "string",
        "related": "S:core.ObjectReference", "reportingComponent": "string", "reportingInstance": "string",
    },
    "core.EventSeries": {
        "count": "int32", "lastObservedTime": "any",
    },
    "core.EventSource": {
        "component": "string", "host": "string",
    },
    "core.FlexPersistentVolumeSource": {
        "driver": "string", "fsType": "string", "secretRef": "S:core.SecretReference", "readOnly": "bool",
        "options": "map:string",
    },
    "core.GlusterfsPersistentVolumeSource": {
        "endpoints": "string", "path": "string", "readOnly": "bool", "endpointsNamespace": "string",
    },
    "core.ISCSIPersistentVolumeSource": {
        "targetPortal": "string", "iqn": "string", "lun": "int32", "iscsiInterface": "string", "fsType": "string",
        "readOnly": "bool", "portals": "[]string", "chapAuthDiscovery": "bool", "chapAuthSession": "bool",
        "secretRef": "S:core.SecretReference", "initiatorName": "string",
    },
    "core.ImageVolumeStatus": {
        "imageRef": "string",
    },
    "core.LoadBalancerIngress": {
        "ip": "string", "hostname": "string", "ipMode": "string:v1.LoadBalancerIPMode",
        "ports": "[]S:core.PortStatus",
    },
    "core.LoadBalancerStatus": {
        "ingress": "[]S:core.LoadBalancerIngress",
    },
    "core.LocalVolumeSource": {
        "path": "string", "fsType": "string",
    },
    "core.Namespace": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "spec": "S:core.NamespaceSpec",
        "status": "S:core.NamespaceStatus",
    },
    "core.NamespaceCondition": {
        "type": "string:v1.NamespaceConditionType", "status": "string:v1.ConditionStatus",
        "lastTransitionTime": "any", "reason": "string", "message": "string",
    },
    "core.NamespaceSpec": {
        "finalizers": "[]string:v1.FinalizerName",
    },
    "core.NamespaceStatus": {
        "phase": "string:v1.NamespacePhase", "conditions": "[]S:core.NamespaceCondition",
    },
    "core.Node": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "spec": "S:core.NodeSpec",
        "status": "S:core.NodeStatus",
    },
    "core.NodeAddress": {
        "type": "string:v1.NodeAddressType", "address": "string",
    },
    "core.NodeAllocatableResourceClaimStatus": {
        "resourceClaimName": "string", "containers": "[]string",
        "resources": "map:quantity@map[v1.ResourceName]resource.Quantity",
    },
    "core.NodeCondition": {
        "type": "string:v1.NodeConditionType", "status": "string:v1.ConditionStatus", "lastHeartbeatTime": "any",
        "lastTransitionTime": "any", "reason": "string", "message": "string",
    },
    "core.NodeConfigSource": {
        "configMap": "S:core.ConfigMapNodeConfigSource",
    },
    "core.NodeConfigStatus": {
        "assigned": "S:core.NodeConfigSource", "active": "S:core.NodeConfigSource",
        "lastKnownGood": "S:core.NodeConfigSource", "error": "string",
    },
    "core.NodeDaemonEndpoints": {
        "kubeletEndpoint": "S:core.DaemonEndpoint",
    },
    "core.NodeFeatures": {
        "supplementalGroupsPolicy": "bool",
    },
    "core.NodeRuntimeHandler": {
        "name": "string", "features": "S:core.NodeRuntimeHandlerFeatures",
    },
    "core.NodeRuntimeHandlerFeatures": {
        "recursiveReadOnlyMounts": "bool", "userNamespaces": "bool",
    },
    "core.NodeSpec": {
        "podCIDR": "string", "podCIDRs": "[]string", "providerID": "string", "unschedulable": "bool",
        "taints": "[]S:core.Taint", "configSource": "S:core.NodeConfigSource", "externalID": "string",
    },
    "core.NodeStatus": {
        "capacity": "map:quantity@v1.ResourceList", "allocatable": "map:quantity@v1.ResourceList",
        "phase": "string:v1.NodePhase", "conditions": "[]S:core.NodeCondition", "addresses": "[]S:core.NodeAddress",
        "daemonEndpoints": "S:core.NodeDaemonEndpoints", "nodeInfo": "S:core.NodeSystemInfo",
        "images": "[]S:core.ContainerImage", "volumesInUse": "[]string:v1.UniqueVolumeName",
        "volumesAttached": "[]S:core.AttachedVolume", "config": "S:core.NodeConfigStatus",
        "runtimeHandlers": "[]S:core.NodeRuntimeHandler", "features": "S:core.NodeFeatures",
        "declaredFeatures": "[]string",
    },
    "core.NodeSwapStatus": {
        "capacity": "int64",
    },
    "core.NodeSystemInfo": {
        "machineID": "string", "systemUUID": "string", "bootID": "string", "kernelVersion": "string",
        "osImage": "string", "containerRuntimeVersion": "string", "kubeletVersion": "string",
        "kubeProxyVersion": "string", "operatingSystem": "string", "architecture": "string",
        "swap": "S:core.NodeSwapStatus",
    },
    "core.PersistentVolume": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta",
        "spec": "S:core.PersistentVolumeSpec", "status": "S:core.PersistentVolumeStatus",
    },
    "core.PersistentVolumeSpec": {
        "capacity": "map:quantity@v1.ResourceList", "gcePersistentDisk": "S:core.GCEPersistentDiskVolumeSource",
        "awsElasticBlockStore": "S:core.AWSElasticBlockStoreVolumeSource", "hostPath": "S:core.HostPathVolumeSource",
        "glusterfs": "S:core.GlusterfsPersistentVolumeSource", "nfs": "S:core.NFSVolumeSource",
        "rbd": "S:core.RBDPersistentVolumeSource", "iscsi": "S:core.ISCSIPersistentVolumeSource",
        "cinder": "S:core.CinderPersistentVolumeSource", "cephfs": "S:core.CephFSPersistentVolumeSource",
        "fc": "S:core.FCVolumeSource", "flocker": "S:core.FlockerVolumeSource",
        "flexVolume": "S:core.FlexPersistentVolumeSource", "azureFile": "S:core.AzureFilePersistentVolumeSource",
        "vsphereVolume": "S:core.VsphereVirtualDiskVolumeSource", "quobyte": "S:core.QuobyteVolumeSource",
        "azureDisk": "S:core.AzureDiskVolumeSource",
        "photonPersistentDisk": "S:core.PhotonPersistentDiskVolumeSource",
        "portworxVolume": "S:core.PortworxVolumeSource", "scaleIO": "S:core.ScaleIOPersistentVolumeSource",
        "local": "S:core.LocalVolumeSource", "storageos": "S:core.StorageOSPersistentVolumeSource",
        "csi": "S:core.CSIPersistentVolumeSource", "accessModes": "[]string:v1.PersistentVolumeAccessMode",
        "claimRef": "S:core.ObjectReference",
        "persistentVolumeReclaimPolicy": "string:v1.PersistentVolumeReclaimPolicy", "storageClassName": "string",
        "mountOptions": "[]string", "volumeMode": "string:v1.PersistentVolumeMode",
        "nodeAffinity": "S:core.VolumeNodeAffinity", "volumeAttributesClassName": "string",
    },
    "core.PersistentVolumeStatus": {
        "phase": "string:v1.PersistentVolumePhase", "message": "string", "reason": "string",
        "lastPhaseTransitionTime": "any",
    },
    "core.PodSchedulingGroup": {
        "podGroupName": "string",
    },
    "core.PodSpec": {
        "schedulingGroup": "S:core.PodSchedulingGroup",
    },
    "core.PodStatus": {
        "nodeAllocatableResourceClaimStatuses": "[]S:core.NodeAllocatableResourceClaimStatus",
    },
    "core.PortStatus": {
        "port": "int32", "protocol": "string:v1.Protocol", "error": "string",
    },
    "core.RBDPersistentVolumeSource": {
        "monitors": "[]string", "image": "string", "fsType": "string", "pool": "string", "user": "string",
        "keyring": "string", "secretRef": "S:core.SecretReference", "readOnly": "bool",
    },
    "core.ResourceHealth": {
        "message": "string",
    },
    "core.ScaleIOPersistentVolumeSource": {
        "gateway": "string", "system": "string", "secretRef": "S:core.SecretReference", "sslEnabled": "bool",
        "protectionDomain": "string", "storagePool": "string", "storageMode": "string", "volumeName": "string",
        "fsType": "string", "readOnly": "bool",
    },
    "core.SecretReference": {
        "name": "string", "namespace": "string",
    },
    "core.Service": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "spec": "S:core.ServiceSpec",
        "status": "S:core.ServiceStatus",
    },
    "core.ServicePort": {
        "name": "string", "protocol": "string:v1.Protocol", "appProtocol": "string", "port": "int32",
        "targetPort": "intstr", "nodePort": "int32",
    },
    "core.ServiceSpec": {
        "ports": "[]S:core.ServicePort", "selector": "map:string", "clusterIP": "string", "clusterIPs": "[]string",
        "type": "string:v1.ServiceType", "externalIPs": "[]string", "sessionAffinity": "string:v1.ServiceAffinity",
        "loadBalancerIP": "string", "loadBalancerSourceRanges": "[]string", "externalName": "string",
        "externalTrafficPolicy": "string:v1.ServiceExternalTrafficPolicy", "healthCheckNodePort": "int32",
        "publishNotReadyAddresses": "bool", "sessionAffinityConfig": "S:core.SessionAffinityConfig",
        "ipFamilies": "[]string:v1.IPFamily", "ipFamilyPolicy": "string:v1.IPFamilyPolicy",
        "allocateLoadBalancerNodePorts": "bool", "loadBalancerClass": "string",
        "internalTrafficPolicy": "string:v1.ServiceInternalTrafficPolicy", "trafficDistribution": "string",
    },
    "core.ServiceStatus": {
        "loadBalancer": "S:core.LoadBalancerStatus", "conditions": "[]S:meta.Condition",
    },
    "core.SessionAffinityConfig": {
        "clientIP": "S:core.ClientIPConfig",
    },
    "core.StorageOSPersistentVolumeSource": {
        "volumeName": "string", "volumeNamespace": "string", "fsType": "string", "readOnly": "bool",
        "secretRef": "S:core.ObjectReference",
    },
    "core.Taint": {
        "key": "string", "value": "string", "effect": "string:v1.TaintEffect", "timeAdded": "any",
    },
    "core.TopologySelectorLabelRequirement": {
        "key": "string", "values": "[]string",
    },
    "core.TopologySelectorTerm": {
        "matchLabelExpressions": "[]S:core.TopologySelectorLabelRequirement",
    },
    "core.VolumeMountStatus": {
        "volumeStatus": "S:core.VolumeStatus",
    },
    "core.VolumeNodeAffinity": {
        "required": "S:core.NodeSelector",
    },
    "core.VolumeStatus": {
        "image": "S:core.ImageVolumeStatus",
    },
    "events.Event": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "eventTime": "any",
        "series": "S:events.EventSeries", "reportingController": "string", "reportingInstance": "string",
        "action": "string", "reason": "string", "regarding": "S:core.ObjectReference",
        "related": "S:core.ObjectReference", "note": "string", "type": "string",
        "deprecatedSource": "S:core.EventSource", "deprecatedFirstTimestamp": "any", "deprecatedLastTimestamp": "any",
        "deprecatedCount": "int32",
    },
    "events.EventSeries": {
        "count": "int32", "lastObservedTime": "any",
    },
    "meta.Condition": {
        "type": "string", "status": "string:v1.ConditionStatus", "observedGeneration": "int64",
        "lastTransitionTime": "any", "reason": "string", "message": "string",
    },
    "policy.PodDisruptionBudget": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta",
        "spec": "S:policy.PodDisruptionBudgetSpec", "status": "S:policy.PodDisruptionBudgetStatus",
    },
    "policy.PodDisruptionBudgetSpec": {
        "minAvailable": "intstr", "selector": "S:meta.LabelSelector", "maxUnavailable": "intstr",
        "unhealthyPodEvictionPolicy": "string:v1.UnhealthyPodEvictionPolicyType",
    },
    "policy.PodDisruptionBudgetStatus": {
        "observedGeneration": "int64", "disruptedPods": "map:any", "disruptionsAllowed": "int32",
        "currentHealthy": "int32", "desiredHealthy": "int32", "expectedPods": "int32",
        "conditions": "[]S:meta.Condition",
    },
    "resource.AllocatedDeviceStatus": {
        "driver": "string", "pool": "string", "device": "string", "shareID": "string",
        "conditions": "[]S:meta.Condition", "data": "any", "networkData": "S:resource.NetworkDeviceData",
    },
    "resource.AllocationResult": {
        "devices": "S:resource.DeviceAllocationResult", "nodeSelector": "S:core.NodeSelector",
        "allocationTimestamp": "any",
    },
    "resource.CELDeviceSelector": {
        "expression": "string",
    },
    "resource.CapacityRequestPolicy": {
        "default": "quantity", "validValues": "[]quantity", "validRange": "S:resource.CapacityRequestPolicyRange",
    },
    "resource.CapacityRequestPolicyRange": {
        "min": "quantity", "max": "quantity", "step": "quantity",
    },
    "resource.CapacityRequirements": {
        "requests": "map:quantity@map[v1.QualifiedName]resource.Quantity",
    },
    "resource.Counter": {
        "value": "quantity",
    },
    "resource.CounterSet": {
        "name": "string", "counters": "map:S:resource.Counter",
    },
    "resource.Device": {
        "name": "string", "attributes": "map:S:resource.DeviceAttribute@map[v1.QualifiedName]v1.DeviceAttribute",
        "capacity": "map:S:resource.DeviceCapacity@map[v1.QualifiedName]v1.DeviceCapacity",
        "consumesCounters": "[]S:resource.DeviceCounterConsumption", "nodeName": "string",
        "nodeSelector": "S:core.NodeSelector", "allNodes": "bool", "taints": "[]S:resource.DeviceTaint",
        "bindsToNode": "bool", "bindingConditions": "[]string", "bindingFailureConditions": "[]string",
        "allowMultipleAllocations": "bool",
        "nodeAllocatableResourceMappings": "map:S:resource.NodeAllocatableResourceMapping@map[v1.ResourceName]v1.NodeAllocatableResourceMapping",  # noqa: E501
    },
    "resource.DeviceAllocationConfiguration": {
        "source": "string:v1.AllocationConfigSource", "requests": "[]string",
        "opaque": "S:resource.OpaqueDeviceConfiguration",
    },
    "resource.DeviceAllocationResult": {
        "results": "[]S:resource.DeviceRequestAllocationResult",
        "config": "[]S:resource.DeviceAllocationConfiguration",
    },
    "resource.DeviceAttribute": {
        "int": "int64", "bool": "bool", "string": "string", "version": "string", "ints": "[]int64", "bools": "[]bool",
        "strings": "[]string", "versions": "[]string",
    },
    "resource.DeviceCapacity": {
        "value": "quantity", "requestPolicy": "S:resource.CapacityRequestPolicy",
    },
    "resource.DeviceClaim": {
        "requests": "[]S:resource.DeviceRequest", "constraints": "[]S:resource.DeviceConstraint",
        "config": "[]S:resource.DeviceClaimConfiguration",
    },
    "resource.DeviceClaimConfiguration": {
        "requests": "[]string", "opaque": "S:resource.OpaqueDeviceConfiguration",
    },
    "resource.DeviceClass": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta",
        "spec": "S:resource.DeviceClassSpec",
    },
    "resource.DeviceClassConfiguration": {
        "opaque": "S:resource.OpaqueDeviceConfiguration",
    },
    "resource.DeviceClassSpec": {
        "selectors": "[]S:resource.DeviceSelector", "config": "[]S:resource.DeviceClassConfiguration",
        "extendedResourceName": "string",
    },
    "resource.DeviceConstraint": {
        "requests": "[]string", "matchAttribute": "string:v1.FullyQualifiedName",
        "distinctAttribute": "string:v1.FullyQualifiedName",
    },
    "resource.DeviceCounterConsumption": {
        "counterSet": "string", "counters": "map:S:resource.Counter",
    },
    "resource.DeviceRequest": {
        "name": "string", "exactly": "S:resource.ExactDeviceRequest",
        "firstAvailable": "[]S:resource.DeviceSubRequest",
    },
    "resource.DeviceRequestAllocationResult": {
        "request": "string", "driver": "string", "pool": "string", "device": "string", "adminAccess": "bool",
        "tolerations": "[]S:resource.DeviceToleration", "bindingConditions": "[]string",
        "bindingFailureConditions": "[]string", "shareID": "string:types.UID",
        "consumedCapacity": "map:quantity@map[v1.QualifiedName]resource.Quantity",
    },
    "resource.DeviceSelector": {
        "cel": "S:resource.CELDeviceSelector",
    },
    "resource.DeviceSubRequest": {
        "name": "string", "deviceClassName": "string", "selectors": "[]S:resource.DeviceSelector",
        "allocationMode": "string:v1.DeviceAllocationMode", "count": "int64",
        "tolerations": "[]S:resource.DeviceToleration", "capacity": "S:resource.CapacityRequirements",
    },
    "resource.DeviceTaint": {
        "key": "string", "value": "string", "effect": "string:v1.DeviceTaintEffect", "timeAdded": "any",
    },
    "resource.DeviceToleration": {
        "key": "string", "operator": "string:v1.DeviceTolerationOperator", "value": "string",
        "effect": "string:v1.DeviceTaintEffect", "tolerationSeconds": "int64",
    },
    "resource.ExactDeviceRequest": {
        "deviceClassName": "string", "selectors": "[]S:resource.DeviceSelector",
        "allocationMode": "string:v1.DeviceAllocationMode", "count": "int64", "adminAccess": "bool",
        "tolerations": "[]S:resource.DeviceToleration", "capacity": "S:resource.CapacityRequirements",
    },
    "resource.NetworkDeviceData": {
        "interfaceName": "string", "ips": "[]string", "hardwareAddress": "string",
    },
    "resource.NodeAllocatableResourceMapping": {
        "capacityKey": "string:v1.QualifiedName", "allocationMultiplier": "quantity",
    },
    "resource.OpaqueDeviceConfiguration": {
        "driver": "string", "parameters": "any",
    },
    "resource.ResourceClaim": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta",
        "spec": "S:resource.ResourceClaimSpec", "status": "S:resource.ResourceClaimStatus",
    },
    "resource.ResourceClaimConsumerReference": {
        "apiGroup": "string", "resource": "string", "name": "string", "uid": "string:types.UID",
    },
    "resource.ResourceClaimSpec": {
        "devices": "S:resource.DeviceClaim",
    },
    "resource.ResourceClaimStatus": {
        "allocation": "S:resource.AllocationResult", "reservedFor": "[]S:resource.ResourceClaimConsumerReference",
        "devices": "[]S:resource.AllocatedDeviceStatus",
    },
    "resource.ResourceClaimTemplate": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta",
        "spec": "S:resource.ResourceClaimTemplateSpec",
    },
    "resource.ResourceClaimTemplateSpec": {
        "metadata": "S:meta.ObjectMeta", "spec": "S:resource.ResourceClaimSpec",
    },
    "resource.ResourcePool": {
        "name": "string", "generation": "int64", "resourceSliceCount": "int64",
    },
    "resource.ResourceSlice": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta",
        "spec": "S:resource.ResourceSliceSpec",
    },
    "resource.ResourceSliceSpec": {
        "driver": "string", "pool": "S:resource.ResourcePool", "nodeName": "string",
        "nodeSelector": "S:core.NodeSelector", "allNodes": "bool", "devices": "[]S:resource.Device",
        "perDeviceNodeSelection": "bool", "sharedCounters": "[]S:resource.CounterSet",
    },
    "scheduling.PriorityClass": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "value": "int32",
        "globalDefault": "bool", "description": "string", "preemptionPolicy": "string:v1.PreemptionPolicy",
    },
    "storage.CSIDriver": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "spec": "S:storage.CSIDriverSpec",
    },
    "storage.CSIDriverSpec": {
        "attachRequired": "bool", "podInfoOnMount": "bool", "volumeLifecycleModes": "[]string:v1.VolumeLifecycleMode",
        "storageCapacity": "bool", "fsGroupPolicy": "string:v1.FSGroupPolicy",
        "tokenRequests": "[]S:storage.TokenRequest", "requiresRepublish": "bool", "seLinuxMount": "bool",
        "nodeAllocatableUpdatePeriodSeconds": "int64", "serviceAccountTokenInSecrets": "bool",
        "preventPodSchedulingIfMissing": "bool",
    },
    "storage.CSINode": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "spec": "S:storage.CSINodeSpec",
    },
    "storage.CSINodeDriver": {
        "name": "string", "nodeID": "string", "topologyKeys": "[]string",
        "allocatable": "S:storage.VolumeNodeResources",
    },
    "storage.CSINodeSpec": {
        "drivers": "[]S:storage.CSINodeDriver",
    },
    "storage.CSIStorageCapacity": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta",
        "nodeTopology": "S:meta.LabelSelector", "storageClassName": "string", "capacity": "quantity",
        "maximumVolumeSize": "quantity",
    },
    "storage.StorageClass": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "provisioner": "string",
        "parameters": "map:string", "reclaimPolicy": "string:v1.PersistentVolumeReclaimPolicy",
        "mountOptions": "[]string", "allowVolumeExpansion": "bool",
        "volumeBindingMode": "string:v1.VolumeBindingMode", "allowedTopologies": "[]S:core.TopologySelectorTerm",
    },
    "storage.TokenRequest": {
        "audience": "string", "expirationSeconds": "int64",
    },
    "storage.VolumeNodeResources": {
        "count": "int32",
    },
    # LimitRange, ResourceQuota, RuntimeClass, HorizontalPodAutoscaler (admission, replica counts).
    "autoscaling.ContainerResourceMetricSource": {
        "name": "string:v1.ResourceName", "target": "S:autoscaling.MetricTarget", "container": "string",
    },
    "autoscaling.ContainerResourceMetricStatus": {
        "name": "string:v1.ResourceName", "current": "S:autoscaling.MetricValueStatus", "container": "string",
    },
    "autoscaling.CrossVersionObjectReference": {
        "kind": "string", "name": "string", "apiVersion": "string",
    },
    "autoscaling.ExternalMetricSource": {
        "metric": "S:autoscaling.MetricIdentifier", "target": "S:autoscaling.MetricTarget",
    },
    "autoscaling.ExternalMetricStatus": {
        "metric": "S:autoscaling.MetricIdentifier", "current": "S:autoscaling.MetricValueStatus",
    },
    "autoscaling.HPAScalingPolicy": {
        "type": "string:v1.HPAScalingPolicyType", "value": "int32", "periodSeconds": "int32",
    },
    "autoscaling.HPAScalingRules": {
        "stabilizationWindowSeconds": "int32", "selectPolicy": "string:v1.ScalingPolicySelect",
        "policies": "[]S:autoscaling.HPAScalingPolicy", "tolerance": "quantity",
    },
    "autoscaling.HorizontalPodAutoscaler": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta",
        "spec": "S:autoscaling.HorizontalPodAutoscalerSpec", "status": "S:autoscaling.HorizontalPodAutoscalerStatus",
    },
    "autoscaling.HorizontalPodAutoscalerBehavior": {
        "scaleUp": "S:autoscaling.HPAScalingRules", "scaleDown": "S:autoscaling.HPAScalingRules",
    },
    "autoscaling.HorizontalPodAutoscalerCondition": {
        "type": "string:v1.HorizontalPodAutoscalerConditionType", "status": "string:v1.ConditionStatus",
        "lastTransitionTime": "any", "reason": "string", "message": "string",
    },
    "autoscaling.HorizontalPodAutoscalerSpec": {
        "scaleTargetRef": "S:autoscaling.CrossVersionObjectReference", "minReplicas": "int32", "maxReplicas": "int32",
        "metrics": "[]S:autoscaling.MetricSpec", "behavior": "S:autoscaling.HorizontalPodAutoscalerBehavior",
    },
    "autoscaling.HorizontalPodAutoscalerStatus": {
        "observedGeneration": "int64", "lastScaleTime": "any", "currentReplicas": "int32", "desiredReplicas": "int32",
        "currentMetrics": "[]S:autoscaling.MetricStatus",
        "conditions": "[]S:autoscaling.HorizontalPodAutoscalerCondition",
    },
    "autoscaling.MetricIdentifier": {
        "name": "string", "selector": "S:meta.LabelSelector",
    },
    "autoscaling.MetricSpec": {
        "type": "string:v1.MetricSourceType", "object": "S:autoscaling.ObjectMetricSource",
        "pods": "S:autoscaling.PodsMetricSource", "resource": "S:autoscaling.ResourceMetricSource",
        "containerResource": "S:autoscaling.ContainerResourceMetricSource",
        "external": "S:autoscaling.ExternalMetricSource",
    },
    "autoscaling.MetricStatus": {
        "type": "string:v1.MetricSourceType", "object": "S:autoscaling.ObjectMetricStatus",
        "pods": "S:autoscaling.PodsMetricStatus", "resource": "S:autoscaling.ResourceMetricStatus",
        "containerResource": "S:autoscaling.ContainerResourceMetricStatus",
        "external": "S:autoscaling.ExternalMetricStatus",
    },
    "autoscaling.MetricTarget": {
        "type": "string:v1.MetricTargetType", "value": "quantity", "averageValue": "quantity",
        "averageUtilization": "int32",
    },
    "autoscaling.MetricValueStatus": {
        "value": "quantity", "averageValue": "quantity", "averageUtilization": "int32",
    },
    "autoscaling.ObjectMetricSource": {
        "describedObject": "S:autoscaling.CrossVersionObjectReference", "target": "S:autoscaling.MetricTarget",
        "metric": "S:autoscaling.MetricIdentifier",
    },
    "autoscaling.ObjectMetricStatus": {
        "metric": "S:autoscaling.MetricIdentifier", "current": "S:autoscaling.MetricValueStatus",
        "describedObject": "S:autoscaling.CrossVersionObjectReference",
    },
    "autoscaling.PodsMetricSource": {
        "metric": "S:autoscaling.MetricIdentifier", "target": "S:autoscaling.MetricTarget",
    },
    "autoscaling.PodsMetricStatus": {
        "metric": "S:autoscaling.MetricIdentifier", "current": "S:autoscaling.MetricValueStatus",
    },
    "autoscaling.ResourceMetricSource": {
        "name": "string:v1.ResourceName", "target": "S:autoscaling.MetricTarget",
    },
    "autoscaling.ResourceMetricStatus": {
        "name": "string:v1.ResourceName", "current": "S:autoscaling.MetricValueStatus",
    },
    "core.LimitRange": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "spec": "S:core.LimitRangeSpec",
    },
    "core.LimitRangeItem": {
        "type": "string:v1.LimitType", "max": "map:quantity@v1.ResourceList", "min": "map:quantity@v1.ResourceList",
        "default": "map:quantity@v1.ResourceList", "defaultRequest": "map:quantity@v1.ResourceList",
        "maxLimitRequestRatio": "map:quantity@v1.ResourceList",
    },
    "core.LimitRangeSpec": {
        "limits": "[]S:core.LimitRangeItem",
    },
    "core.ResourceQuota": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "spec": "S:core.ResourceQuotaSpec",
        "status": "S:core.ResourceQuotaStatus",
    },
    "core.ResourceQuotaSpec": {
        "hard": "map:quantity@v1.ResourceList", "scopes": "[]string:v1.ResourceQuotaScope",
        "scopeSelector": "S:core.ScopeSelector",
    },
    "core.ResourceQuotaStatus": {
        "hard": "map:quantity@v1.ResourceList", "used": "map:quantity@v1.ResourceList",
    },
    "core.ScopeSelector": {
        "matchExpressions": "[]S:core.ScopedResourceSelectorRequirement",
    },
    "core.ScopedResourceSelectorRequirement": {
        "scopeName": "string:v1.ResourceQuotaScope", "operator": "string:v1.ScopeSelectorOperator",
        "values": "[]string",
    },
    "node.Overhead": {
        "podFixed": "map:quantity@v1.ResourceList",
    },
    "node.RuntimeClass": {
        "kind": "string", "apiVersion": "string", "metadata": "S:meta.ObjectMeta", "handler": "string",
        "overhead": "S:node.Overhead", "scheduling": "S:node.Scheduling",
    },
    "node.Scheduling": {
        "nodeSelector": "map:string", "tolerations": "[]S:core.Toleration",
    },
}
