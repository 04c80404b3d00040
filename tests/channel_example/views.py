from django.http import HttpResponse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view
from rest_framework.response import Response


def example_home(request):
    return HttpResponse("example")


@extend_schema(responses=inline_serializer("ExamplePing", {"ok": serializers.BooleanField()}))
@api_view(["GET"])
def example_ping(request):
    return Response({"ok": True})


def example_hook(request):
    return HttpResponse("hook")


class ExampleCampaignInput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["example"])
    name = serializers.CharField()


def example_campaign_create(*, actor, **data):
    raise NotImplementedError  # the contract test reads the registration; it creates nothing
